import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { applyMigrations, pgClientRunner } from "@/server/db";
import { urlForDatabase, withAdminClient } from "../helpers/db";
import { createOwner, freePort, waitForOutput } from "./app-process";
import { BENCH_DATABASE_PREFIX } from "./bench-db";
import { BenchUsageError, fmt, numberOption, type TBenchFlag, type TBenchmark, table } from "./harness";
import { percentile } from "./stats";

/**
 * The trackers list at scale, through the route (docs/benchmarks.md, "trackers-list"): `npm start` on a throw-away
 * PostgreSQL database (TEST_DATABASE_URL's server), one person with N trackers inserted in one SQL statement each for
 * the trackers, their entities and current states (a price and a stock count each; a tenth archived, a tenth paused,
 * a tenth failing, 1 in 97 naming "Acme"), then GET /trackers signed in — the first page, a filtered page and a
 * search — rounds interleaved: wall p50/p95 and bytes of HTML per page. The page is server-rendered with the first
 * page of 50 prefetched, so its bytes do not grow with N.
 */

const TRACKERS_FLAG: TBenchFlag = {
  name: "list-trackers",
  env: "BENCH_LIST_TRACKERS",
  default: 10_000,
  min: 100,
  max: 100_000,
  integer: true,
  description: "trackers-list: trackers of the one person (default 10,000)",
};
const REQUESTS_FLAG: TBenchFlag = {
  name: "list-requests",
  env: "BENCH_LIST_REQUESTS",
  default: 40,
  min: 5,
  max: 1000,
  integer: true,
  description: "trackers-list: measured requests per page, after 3 warm-ups",
};

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const DIST_DIR = process.env.BELLWETHER_DIST_DIR || ".next-bench";
const READY_TIMEOUT_MS = 900_000; // the first `npm start` builds (2–5 min on 2 cores)

const PAGES = [
  { name: "first page (/trackers)", path: "/trackers" },
  { name: "filtered (?show=failing)", path: "/trackers?show=failing" },
  { name: "search (?show=all&q=acme)", path: "/trackers?show=all&q=acme" },
] as const;

export const trackersListBenchmark: TBenchmark = {
  name: "trackers-list",
  description:
    "GET /trackers through the started server at N trackers (PostgreSQL): p50/p95 and bytes per page, first page, filter, search",
  flags: [TRACKERS_FLAG, REQUESTS_FLAG],
  validate(args) {
    if (args.names.includes("trackers-list") && !args.env.TEST_DATABASE_URL?.trim()) {
      throw new BenchUsageError(
        "trackers-list needs TEST_DATABASE_URL (a PostgreSQL server URL whose user may create databases).",
      );
    }
  },
  async run(args, out) {
    const serverUrl = args.env.TEST_DATABASE_URL?.trim();
    if (!serverUrl) {
      out("  skipped: TEST_DATABASE_URL is not set (this benchmark runs the app on a throw-away PostgreSQL database)");
      return;
    }
    const n = numberOption(args, TRACKERS_FLAG);
    const requests = numberOption(args, REQUESTS_FLAG);
    const pg = (await import("pg")).default;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const name = `${BENCH_DATABASE_PREFIX}${process.pid}_list_${randomBytes(3).toString("hex")}`;
    await admin.query(`CREATE DATABASE "${name}"`);
    const databaseUrl = urlForDatabase(serverUrl, name);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "bw-list-"));
    let proc: ChildProcess | undefined;
    try {
      await withAdminClient(databaseUrl, (client) => applyMigrations(pgClientRunner(client)));
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      proc = spawn("npm", ["start"], {
        cwd: ROOT,
        env: {
          ...process.env,
          BELLWETHER_DIST_DIR: DIST_DIR,
          DATA_DIR: path.join(work, "data"),
          PORT: String(port),
          HOSTNAME: "127.0.0.1",
          LOG_LEVEL: "warn",
          DATABASE_URL: databaseUrl,
          AUTH_SECRET: randomBytes(32).toString("base64url"),
          AI_PROVIDER: "rules",
          SCHEDULER: "off",
        },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      out(`  starting the app (npm start on ${DIST_DIR}; builds first when the sources changed)…`);
      await waitForOutput(proc, /\[bellwether\] ready in/, READY_TIMEOUT_MS);
      const cookie = await createOwner(url);

      const seeded = performance.now();
      await withAdminClient(databaseUrl, async (client) => {
        const userId = (await client.query<{ id: string }>(`SELECT id FROM "User" LIMIT 1`)).rows[0]?.id;
        await client.query(
          `INSERT INTO "Tracker" (id, "userId", decision, capability, "capabilityInput", status, "lockedVersion",
             "consecutiveFailures", "nextRunAt", "lastRunAt", "createdAt", "updatedAt")
           SELECT 'bt' || i, $1,
             CASE WHEN i % 97 = 0 THEN 'Is Acme pulling ahead on item ' || i || '?' ELSE 'Is item ' || i || ' getting cheaper?' END,
             'web.scrape', jsonb_build_object('url', 'https://shop' || (i % 7) || '.example/p/' || i),
             (CASE WHEN i % 10 = 0 THEN 'archived' WHEN i % 10 = 1 THEN 'paused' ELSE 'active' END)::"TrackerStatus",
             1, CASE WHEN i % 10 = 2 THEN 5 ELSE 0 END, now() + interval '1 hour', now() - interval '1 hour',
             now() - i * interval '1 minute', now()
           FROM generate_series(1, $2::int) AS i`,
          [userId, n],
        );
        await client.query(
          `INSERT INTO "TrackedEntity" (id, "trackerId", "entityKey", "firstSeenAt")
           SELECT 'be' || substr(id, 3), id, 'https://shop.example/p', now() FROM "Tracker" WHERE id LIKE 'bt%'`,
        );
        await client.query(
          `INSERT INTO "EntityCurrentState" ("entityId", fields, observed, "contentHash", "definitionVersion",
             "lastCheckedAt", "updatedAt")
           SELECT id, '{"price": {"amount": 39.5, "currency": "USD"}, "units_left": 1200}', '{}', 'h', 1, now(), now()
           FROM "TrackedEntity" WHERE id LIKE 'be%'`,
        );
        await client.query(`ANALYZE`);
      });
      out(
        `  ${fmt(n, 0)} trackers inserted in ${fmt((performance.now() - seeded) / 1000, 1)} s; ${requests} requests per page`,
      );

      const get = async (pagePath: string) => {
        const started = performance.now();
        const res = await fetch(`${url}${pagePath}`, { headers: { cookie } });
        const body = await res.text();
        if (res.status !== 200) throw new Error(`${pagePath}: HTTP ${res.status}`);
        return {
          ms: performance.now() - started,
          bytes: Buffer.byteLength(body),
          rows: body.split('data-testid="tracker-row"').length - 1,
        };
      };
      for (let i = 0; i < 3; i++) for (const page of PAGES) await get(page.path);
      const times = PAGES.map(() => [] as number[]);
      const bytes = PAGES.map(() => 0);
      const rows = PAGES.map(() => 0);
      for (let r = 0; r < requests; r++) {
        // Interleaved, order rotating, so load on the machine falls on every page alike.
        for (let k = 0; k < PAGES.length; k++) {
          const i = (k + r) % PAGES.length;
          const page = PAGES[i] as (typeof PAGES)[number];
          const result = await get(page.path);
          times[i]?.push(result.ms);
          bytes[i] = result.bytes;
          rows[i] = result.rows;
        }
      }
      out(
        table([
          ["page", "rows", "p50 ms", "p95 ms", "KB of HTML"],
          ...PAGES.map((page, i) => [
            page.name,
            String(rows[i]),
            fmt(percentile(times[i] ?? [], 50), 0),
            fmt(percentile(times[i] ?? [], 95), 0),
            fmt((bytes[i] ?? 0) / 1024, 1),
          ]),
        ]),
      );
      out(
        `  load average ${os
          .loadavg()
          .map((l) => fmt(l, 1))
          .join(" ")}`,
      );
    } finally {
      if (proc?.pid) {
        try {
          process.kill(-proc.pid, "SIGTERM");
        } catch {}
        await new Promise((r) => setTimeout(r, 1500));
        try {
          process.kill(-proc.pid, "SIGKILL");
        } catch {}
      }
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
      await admin.end();
      fs.rmSync(work, { recursive: true, force: true });
    }
  },
};

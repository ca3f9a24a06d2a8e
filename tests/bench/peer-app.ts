import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { applyMigrations, pgClientRunner } from "@/server/db";
import { urlForDatabase, withAdminClient } from "../helpers/db";
import { appGroup, createApiToken, createOwner, freePort, processTree, waitForOutput } from "./app-process";
import { BENCH_DATABASE_PREFIX } from "./bench-db";
import { readSchedstatNs, type TPostgres, treeThreadsNs } from "./set-route";

/**
 * The started app as the peer benchmark drives it (tests/bench/README.md, "peer"): `npm start` on its own build dir
 * (BELLWETHER_DIST_DIR, default .next-bench, as the other app benchmarks), over embedded PGlite in a throw-away data
 * dir or a throw-away PostgreSQL database, in a process group of its own; rules mode, SCHEDULER=off (the cron route's
 * passes are the only refreshes), the clock preload (set-route-clock.mjs) so each round's pass finds every tracker due.
 * The settings that make it comparable with urlwatch come from the caller: REFRESH_CONCURRENCY and the per-host gate.
 */

export type TPeerDbKind = "pglite" | "postgres";

const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), "set-route-clock.mjs");
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PEER_DIST_DIR = process.env.BELLWETHER_DIST_DIR || ".next-bench";
const READY_TIMEOUT_MS = 900_000; // the first `npm start` builds (2–5 min on 2 cores)
const REQUEST_TIMEOUT_MS = 300_000;
/** A pass that has not checked every tracker after this many calls is broken (each call runs to its budget). */
const MAX_CALLS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (line: string) => process.stderr.write(`  [peer] ${line}\n`);

export function peerBuildId(): string {
  try {
    return fs.readFileSync(path.join(ROOT, PEER_DIST_DIR, "BUILD_ID"), "utf8").trim();
  } catch {
    return "";
  }
}

/** CPU readings: every thread of the app's process tree (ns), and its database's PostgreSQL backends (ns by pid). */
export type TPeerReading = { tree: Map<string, number>; backends: Map<number, number> | null };

export type TCronPass = {
  wallMs: number;
  calls: number;
  /** Refreshes the calls ran (completed, failed, skipped, thrown). */
  refreshes: number;
  outcomes: Record<string, number>;
};

export type TPeerApp = {
  label: string;
  kind: TPeerDbKind;
  url: string;
  buildId: string;
  /** Daily web.scrape trackers through the public API (created active, locked at v1, due at once). */
  createTrackers(urls: readonly string[], definition: unknown): Promise<void>;
  /** Moves the app's clock on by `ms` (the offset file, then SIGUSR2 to the Next server, which acknowledges it). */
  moveClock(ms: number): Promise<void>;
  reading(): Promise<TPeerReading>;
  /** POST /api/cron/refresh with the secret, again until `expected` refreshes ran (or a call claims nothing); once at least. */
  cronPass(expected: number): Promise<TCronPass>;
  tail(): string;
  stop(): Promise<void>;
};

type TCronAnswer = {
  claimed: number;
  completed: number;
  failed: number;
  skipped: number;
  errors: number;
  outcomes: Record<string, number>;
};

/** What to stop if the benchmark is interrupted (Ctrl+C): the apps' process groups, their databases and files. */
const stopping = new Set<() => Promise<void>>();

function onSignal(signal: NodeJS.Signals): void {
  progress(`${signal}: stopping the apps and dropping their databases…`);
  void Promise.allSettled([...stopping].map((stop) => stop())).finally(() =>
    process.exit(signal === "SIGINT" ? 130 : 143),
  );
}

/** While the benchmark runs: Ctrl+C stops the apps it started. Returns the undo. */
export function stopAppsOnSignal(): () => void {
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}

export async function startPeerApp(options: {
  label: string;
  kind: TPeerDbKind;
  postgres?: TPostgres;
  env: Record<string, string>;
}): Promise<TPeerApp> {
  const { label, kind, postgres } = options;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "bw-peer-"));
  const clockFile = path.join(work, "clock-offset-ms");
  fs.writeFileSync(clockFile, "0");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const cronSecret = randomBytes(24).toString("base64url");
  let database: string | undefined;
  const cleanups: (() => Promise<void>)[] = [async () => fs.rmSync(work, { recursive: true, force: true })];
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      for (const fn of cleanups.reverse()) await fn().catch(() => {});
      stopping.delete(stop);
    })();
    return stopped;
  };
  stopping.add(stop);
  let tail = () => "";
  try {
    let databaseUrl = "";
    if (kind === "postgres") {
      if (!postgres) throw new Error("PostgreSQL is not available");
      const name = `${BENCH_DATABASE_PREFIX}${process.pid}_peer_${randomBytes(3).toString("hex")}`;
      await postgres.admin.query(`CREATE DATABASE "${name}"`);
      database = name;
      cleanups.push(async () => {
        await postgres.admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      });
      databaseUrl = urlForDatabase(postgres.serverUrl, name);
      await withAdminClient(databaseUrl, (client) => applyMigrations(pgClientRunner(client)));
    }
    const inherited = { ...process.env };
    for (const name of ["SCHEDULER_POLL_MS", "WORKER_POLL_MS", "VERCEL", "AWS_LAMBDA_FUNCTION_NAME"]) {
      delete inherited[name];
    }
    const proc: ChildProcess = spawn("npm", ["start"], {
      cwd: ROOT,
      env: {
        ...inherited,
        BELLWETHER_DIST_DIR: PEER_DIST_DIR,
        DATA_DIR: path.join(work, "data"),
        PORT: String(port),
        HOSTNAME: "127.0.0.1",
        LOG_LEVEL: "warn",
        DATABASE_URL: databaseUrl,
        AUTH_SECRET: randomBytes(32).toString("base64url"),
        AI_PROVIDER: "rules",
        CRON_SECRET: cronSecret,
        SCHEDULER: "off",
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${pathToFileURL(PRELOAD).href}`.trim(),
        BELLWETHER_BENCH_SIGNALLED_CLOCK_FILE: clockFile,
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const group = appGroup(proc);
    const root = group.root;
    tail = group.tail;
    // Stopped before its database is dropped and its data directory removed (cleanups run in reverse).
    cleanups.push(group.stop);
    progress(`starting ${label} (npm start; builds ${PEER_DIST_DIR} first when the sources changed)…`);
    await waitForOutput(proc, /\[bellwether\] ready in/, READY_TIMEOUT_MS);
    progress(`${label} ready on ${url}`);

    const cookie = await createOwner(url);
    const token = await createApiToken(url, cookie, "peer bench");
    let offsetMs = 0;

    const backends = async (): Promise<Map<number, number> | null> => {
      if (!postgres?.local || !database) return null;
      const { rows } = await postgres.admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1",
        [database],
      );
      const cpu = new Map<number, number>();
      for (const { pid } of rows) {
        const ns = readSchedstatNs(pid);
        if (ns !== undefined) cpu.set(pid, ns);
      }
      return cpu;
    };

    return {
      label,
      kind,
      url,
      buildId: peerBuildId(),
      async createTrackers(urls, definition) {
        for (const target of urls) {
          const res = await fetch(`${url}/api/v1/trackers`, {
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({
              decision: "Is this competitor undercutting our Pro plan?",
              capability: "web.scrape",
              capabilityInput: { url: target },
              scheduleMinutes: 1440,
              definition,
            }),
          });
          if (!res.ok)
            throw new Error(`${label}: POST /trackers: HTTP ${res.status} ${(await res.text()).slice(0, 500)}`);
        }
      },
      async moveClock(ms) {
        offsetMs += ms;
        fs.writeFileSync(clockFile, String(offsetMs));
        const server = processTree(root).find((pid) => {
          try {
            return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("next-server");
          } catch {
            return false;
          }
        });
        if (server === undefined) throw new Error(`${label}: the app's Next server process was not found`);
        const ack = `${clockFile}.${server}.ack`;
        process.kill(server, "SIGUSR2");
        for (let i = 0; i < 100; i++) {
          try {
            if (Number(fs.readFileSync(ack, "utf8")) === offsetMs) return;
          } catch {
            // not yet written
          }
          await sleep(50);
        }
        throw new Error(`${label}: the app did not take the new clock offset within 5 s`);
      },
      async reading() {
        const db = await backends();
        return { tree: treeThreadsNs(root), backends: db };
      },
      async cronPass(expected) {
        const outcomes: Record<string, number> = {};
        let refreshes = 0;
        let calls = 0;
        const started = performance.now();
        // At least one call: with `expected` 0, one pass that finds nothing due (its fixed cost).
        do {
          calls++;
          const res = await fetch(`${url}/api/cron/refresh`, {
            method: "POST",
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
            headers: { authorization: `Bearer ${cronSecret}` },
          });
          const body = (await res.json()) as TCronAnswer;
          if (!res.ok) throw new Error(`${label}: the cron route answered ${res.status}: ${JSON.stringify(body)}`);
          for (const [k, v] of Object.entries(body.outcomes)) outcomes[k] = (outcomes[k] ?? 0) + v;
          if (body.errors) outcomes.error = (outcomes.error ?? 0) + body.errors;
          refreshes += body.completed + body.failed + body.skipped + body.errors;
          if (body.claimed === 0) break;
        } while (refreshes < expected && calls < MAX_CALLS);
        return { wallMs: performance.now() - started, calls, refreshes, outcomes };
      },
      tail,
      stop,
    };
  } catch (error) {
    if (tail()) progress(`${label}: the app's last output:\n${tail()}`);
    await stop();
    throw error;
  }
}

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ACME_PRICING_DEFINITION } from "../fixtures/acme-pricing";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import {
  createApiToken,
  createOwner,
  cronPass,
  freePort,
  processRss,
  processTree,
  type TProcessRss,
  treeRssMb,
  waitForOutput,
} from "./app-process";
import { FIXTURE_HOST_ENV } from "./fixture-host";
import { fmt, numberOption, type TBenchFlag, type TBenchmark, table } from "./harness";
import { makeBenchPage, renderBenchPage, type TBenchPage } from "./pages";
import { procStat } from "./proc-stat";
import { seededRandom } from "./stats";

const REQUESTS: TBenchFlag = {
  name: "requests",
  env: "BENCH_MEMORY_REQUESTS",
  default: 20,
  min: 1,
  max: 1000,
  integer: true,
  description: "page loads after start before the second reading",
};

const TRACKERS: TBenchFlag = {
  name: "trackers",
  env: "BENCH_MEMORY_TRACKERS",
  default: 200,
  min: 0,
  max: 5000,
  integer: true,
  description: "web.scrape trackers created through the API, refreshed by the cron route (0 = none)",
};

const PASSES: TBenchFlag = {
  name: "passes",
  env: "BENCH_MEMORY_PASSES",
  default: 5,
  min: 1,
  max: 100,
  integer: true,
  description: "cron passes over all trackers, with a reading after each",
};

const PORT: TBenchFlag = {
  name: "port",
  env: "BENCH_MEMORY_PORT",
  default: 0,
  min: 0,
  max: 65535,
  integer: true,
  description: "port for the app (0 = any free port)",
};

/**
 * Whole-app resident memory, the way docs/operations.md ("Memory and start-up time") states it: `npm start` on a fresh embedded database, then the sum of
 * RSS over the whole process tree (npm, the launcher, the Next server and any page workers), read from /proc —
 * once the app says it is ready, again after the first requests (owner account, feed, trackers, settings), and,
 * with `--trackers N`, after creating N web.scrape trackers over the bench pages (tests/bench/pages.ts, on a local
 * fixture site the app is allowed to fetch) through the public API and after each of `--passes` refresh passes
 * through the cron route. Between passes ~10% of the pages change price (so both the unchanged and the changed
 * path run) and the app's clock moves 20 minutes forward (tests/bench/app-preload.mjs), so every tracker is due
 * again. Each reading also asks the Next server (SIGUSR2, same preload) for its heap, external and WebAssembly
 * memory, to show which part grows.
 */

const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), "app-preload.mjs");
const PASS_MINUTES = 20;

type TServerReport = {
  memoryUsage: NodeJS.MemoryUsage;
  heapSpaces: Record<string, number>;
  wasmMemories: number[];
  workerHeaps: { total: number; used: number }[];
  /** From /proc/<pid>/smaps: resident bytes in WebAssembly memory reservations, in file mappings, the rest. */
  smaps?: { wasm: number; file: number; anon: number };
};

/**
 * Splits a process's resident memory by mapping. A WebAssembly memory is the readable part of a reservation of
 * several GiB (V8's guard region follows it as an inaccessible mapping); code and data files are file mappings;
 * everything else (JS heaps, malloc) is anonymous.
 */
function smapsSplit(pid: number): TServerReport["smaps"] {
  try {
    type TVma = { start: number; end: number; perms: string; file: boolean; rss: number };
    const vmas: TVma[] = [];
    for (const line of fs.readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
      const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)/.exec(line);
      if (head) {
        const [, start, end, perms, inode] = head as unknown as [string, string, string, string, string];
        vmas.push({
          start: Number.parseInt(start, 16),
          end: Number.parseInt(end, 16),
          perms,
          file: inode !== "0",
          rss: 0,
        });
        continue;
      }
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      const last = vmas.at(-1);
      if (rss && last) last.rss += Number(rss[1]) * 1024;
    }
    const out = { wasm: 0, file: 0, anon: 0 };
    vmas.forEach((vma, i) => {
      const next = vmas[i + 1];
      const guarded =
        !vma.file &&
        next !== undefined &&
        next.start === vma.end &&
        next.perms.startsWith("---") &&
        next.end - vma.start >= 4 * 2 ** 30;
      out[guarded ? "wasm" : vma.file ? "file" : "anon"] += vma.rss;
    });
    return out;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system, all threads) the Next server has used so far. */
function serverCpuSeconds(root: number): number {
  const server = processTree(root)
    .map(processRss)
    .find((p) => p?.name === "next-server");
  if (!server) return Number.NaN;
  return (procStat(server.pid)?.cpuMs ?? Number.NaN) / 1000;
}

/** Asks the Next server for its memory breakdown (SIGUSR2 → tests/bench/app-preload.mjs writes a report). */
async function serverReport(root: number, reportDir: string): Promise<TServerReport | undefined> {
  const server = processTree(root)
    .map(processRss)
    .find((p) => p?.name === "next-server");
  if (!server) return undefined;
  const file = path.join(reportDir, `${server.pid}.json`);
  fs.rmSync(file, { force: true });
  process.kill(server.pid, "SIGUSR2");
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    if (fs.existsSync(file)) {
      const report = JSON.parse(fs.readFileSync(file, "utf8")) as TServerReport;
      const smaps = smapsSplit(server.pid);
      return smaps ? { ...report, smaps } : report;
    }
  }
  return undefined;
}

type TReading = { label: string; tree: { mb: number; processes: number }; report?: TServerReport; note?: string };

const mb = (bytes: number | undefined) => (bytes === undefined ? "–" : fmt(bytes / 2 ** 20, 0));

async function createTrackers(url: string, cookie: string, targets: string[]): Promise<void> {
  const token = await createApiToken(url, cookie, "memory bench");
  for (const target of targets) {
    const res = await fetch(`${url}/api/v1/trackers`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        decision: "Is this competitor undercutting our Pro plan?",
        capability: "web.scrape",
        capabilityInput: { url: target },
        scheduleMinutes: 15,
        definition: ACME_PRICING_DEFINITION,
      }),
    });
    if (!res.ok) throw new Error(`creating a tracker for ${target}: HTTP ${res.status} ${await res.text()}`);
  }
}

/** Fresh noise on every page, and a new price on ~10% of them (seeded). */
function servePages(site: TFixtureSite, pages: TBenchPage[], rand: () => number, changeRate: number): void {
  for (const page of pages) {
    if (rand() < changeRate) page.price = Math.round(page.price * (1 + (rand() < 0.5 ? -1 : 1) * 0.1) * 100) / 100;
    site.setPage(page.path, { body: renderBenchPage(page) });
  }
}

export const memoryBenchmark: TBenchmark = {
  name: "memory",
  description: "whole-app resident memory (process tree) after start, requests and cron passes over N trackers",
  flags: [REQUESTS, TRACKERS, PASSES, PORT],
  async run(args, out) {
    const requests = numberOption(args, REQUESTS);
    const trackers = numberOption(args, TRACKERS);
    const passes = numberOption(args, PASSES);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-memory-"));
    const reportDir = path.join(dataDir, "reports");
    fs.mkdirSync(reportDir);
    const clockFile = path.join(reportDir, "clock-offset-ms");
    const port = numberOption(args, PORT) || (await freePort());
    const url = `http://127.0.0.1:${port}`;
    const cronSecret = randomBytes(24).toString("base64url");
    const rand = seededRandom(42);
    const pages = Array.from({ length: trackers }, (_, i) => makeBenchPage(i, 42, { min: 20, max: 50 }));
    const site = trackers > 0 ? await startFixtureSite() : undefined;
    if (site) servePages(site, pages, rand, 0);
    const proc = spawn("npm", ["start"], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOSTNAME: "127.0.0.1",
        LOG_LEVEL: "warn",
        DATABASE_URL: "",
        AI_PROVIDER: "rules",
        CRON_SECRET: cronSecret,
        ...FIXTURE_HOST_ENV,
        // The passes below are the only refreshes: the server's own scheduler (on by default) would otherwise take
        // trackers as they are created and between passes, and a pass would no longer refresh all of them.
        SCHEDULER: "off",
        FETCH_ALLOW_HOSTS: site ? new URL(site.url).host : "",
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${pathToFileURL(PRELOAD).href}`.trim(),
        BELLWETHER_BENCH_CLOCK_FILE: clockFile,
        BELLWETHER_BENCH_REPORT_DIR: reportDir,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const root = proc.pid as number;
    const readings: TReading[] = [];
    const read = async (label: string, note?: string) => {
      await new Promise((r) => setTimeout(r, 2000));
      const report = await serverReport(root, reportDir);
      readings.push({ label, tree: treeRssMb(root), ...(report ? { report } : {}), ...(note ? { note } : {}) });
    };
    try {
      await waitForOutput(proc, /\[bellwether\] ready in/, 900_000);
      await read("after start");
      const cookie = await createOwner(url);
      const paths = ["/", "/trackers", "/trackers/new", "/settings"];
      for (let i = 0; i < requests; i++) {
        const res = await fetch(`${url}${paths[i % paths.length]}`, { headers: { cookie } });
        await res.arrayBuffer();
      }
      await read(`after ${requests} page loads`);
      if (site && trackers > 0) {
        await createTrackers(
          url,
          cookie,
          pages.map((p) => site.urlFor(p.path)),
        );
        await read(`after creating ${trackers} trackers`);
        for (let pass = 1; pass <= passes; pass++) {
          if (pass > 1) {
            servePages(site, pages, rand, 0.1);
            fs.writeFileSync(clockFile, String((pass - 1) * PASS_MINUTES * 60_000));
            await new Promise((r) => setTimeout(r, 500)); // the app re-reads the offset every 100 ms
          }
          const started = performance.now();
          const cpu0 = serverCpuSeconds(root);
          const s = await cronPass(url, cronSecret);
          const seconds = (performance.now() - started) / 1000;
          const cpu = serverCpuSeconds(root) - cpu0;
          const outcomes = Object.entries(s.outcomes)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ");
          await read(
            `after cron pass ${pass}`,
            `${s.completed} refreshed in ${fmt(seconds)} s, server CPU ${fmt(cpu)} s (${outcomes})`,
          );
          if (s.completed !== trackers) {
            throw new Error(
              `memory bench: cron pass ${pass} completed ${s.completed} of ${trackers} refreshes (failed ${s.failed}, skipped ${s.skipped}, errors ${s.errors}); the figures would mean nothing`,
            );
          }
        }
      }
    } finally {
      const last = processTree(root)
        .map(processRss)
        .filter((p): p is TProcessRss => p !== undefined);
      try {
        process.kill(-root, "SIGTERM");
      } catch {
        // already gone
      }
      await new Promise((r) => setTimeout(r, 3000));
      await site?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (readings.length > 0) {
        out(`  whole process tree, embedded database, ${os.cpus().length} cores`);
        out(
          table([
            [
              "reading",
              "tree MB",
              "procs",
              "server RSS",
              "WASM res.",
              "files",
              "JS heap (used)",
              "workers' heap",
              "external",
              "note",
            ],
            ...readings.map((r) => {
              const m = r.report?.memoryUsage;
              const workers = r.report?.workerHeaps ?? [];
              const sum = (f: (w: { total: number; used: number }) => number) => workers.reduce((a, w) => a + f(w), 0);
              return [
                r.label,
                String(r.tree.mb),
                String(r.tree.processes),
                mb(m?.rss),
                mb(r.report?.smaps?.wasm),
                mb(r.report?.smaps?.file),
                m ? `${mb(m.heapTotal)} (${mb(m.heapUsed)})` : "–",
                workers.length ? `${mb(sum((w) => w.total))} (${mb(sum((w) => w.used))})` : "–",
                mb(m?.external),
                r.note ?? "",
              ];
            }),
          ]),
        );
        const final = readings.at(-1)?.report;
        if (final) {
          out(
            `  WebAssembly memories in the server (MB reserved by the module, of which "WASM res." above is resident): ${final.wasmMemories.map((b) => mb(b)).join(", ")}`,
          );
        }
        out(`  processes at the end: ${last.map((p) => `${p.name} ${p.mb} MB`).join("; ")}`);
      }
    }
  },
};

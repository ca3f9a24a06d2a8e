import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DEFAULT_SCHEDULER_POLL_MS } from "@/server/env";
import { ACME_PRICING_DEFINITION } from "../fixtures/acme-pricing";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { startWebhookReceiver } from "../helpers/notify-receivers";
import {
  appGroup,
  createApiToken,
  createOwner,
  cronPass,
  freePort,
  treeCpuMs,
  trpcMutation,
  waitForOutput,
} from "./app-process";
import { FIXTURE_HOST_ENV } from "./fixture-host";
import { fmt, numberOption, type TBenchFlag, type TBenchmark, table } from "./harness";
import { makeBenchPage, renderBenchPage, type TBenchPage } from "./pages";
import { seededRandom, summarise } from "./stats";

/**
 * The server's own scheduler (server/triggers/server-scheduler.ts) as users meet it, on the real `npm start` over a
 * fresh embedded database (tests/bench/README.md, "scheduler"):
 *
 * 1. Delivery latency — a material change recorded → its webhook received by a local receiver. "Refresh now" through
 *    the public API (the refresh's answer means the change is recorded; the sender is woken at once), and, with
 *    `--scheduler-samples`, changes the scheduler finds itself once the app's clock moves a day on
 *    (tests/bench/app-preload.mjs): from the run's finishedAt, and from the moment the tracker fell due (which
 *    includes waiting for the next poll).
 * 2. Idle cost — CPU of the whole process tree per minute with `--idle-trackers` daily trackers, all baselined and
 *    none due: an app with the scheduler on (the default, default poll) and one with SCHEDULER=off, same setup, idle
 *    over the same window at the same time.
 *
 * Prints, never asserts; exits non-zero only when the work failed (a refresh not material, a webhook that never came).
 */

const DELIVERY_SAMPLES: TBenchFlag = {
  name: "delivery-samples",
  env: "BENCH_SCHEDULER_DELIVERY_SAMPLES",
  default: 20,
  min: 0,
  max: 1000,
  integer: true,
  description: "material changes by Refresh now (API), each timed to its webhook (0 = none)",
};

const SCHEDULER_SAMPLES: TBenchFlag = {
  name: "scheduler-samples",
  env: "BENCH_SCHEDULER_SCHEDULER_SAMPLES",
  default: 3,
  min: 0,
  max: 50,
  integer: true,
  description: "material changes the scheduler finds itself (clock moved a day on; each waits ≤ 1 poll)",
};

const IDLE_TRACKERS: TBenchFlag = {
  name: "idle-trackers",
  env: "BENCH_SCHEDULER_IDLE_TRACKERS",
  default: 200,
  min: 0,
  max: 5000,
  integer: true,
  description: "daily web.scrape trackers in each idle app, baselined so none is due",
};

const IDLE_SECONDS: TBenchFlag = {
  name: "idle-seconds",
  env: "BENCH_SCHEDULER_IDLE_SECONDS",
  default: 60,
  min: 0,
  max: 3600,
  integer: false,
  description: "idle window of the scheduler on/off apps, measured at the same time (0 = skip)",
};

const SETTLE_SECONDS: TBenchFlag = {
  name: "settle-seconds",
  env: "BENCH_SCHEDULER_SETTLE_SECONDS",
  default: 60,
  min: 0,
  max: 3600,
  integer: false,
  description: "wait after the idle apps' baselines before the window (the work that follows them takes ~40 s)",
};

const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), "app-preload.mjs");
/** Daily: nothing falls due by itself while the benchmark runs (the jitter adds ≤ 5 min). */
const DAILY = 1440;
/** How far the app's clock moves for one scheduler sample: past a daily schedule and its jitter. */
const DAY_AND_MORE_MS = (DAILY + 10) * 60_000;
/** Unmeasured Refresh-now samples first (the route's first calls compile and warm up). */
const WARMUP_SAMPLES = 2;
/** The idle window is also read in this many slices (printed, to show it was steady). */
const IDLE_SLICES = 6;
const READY_TIMEOUT_MS = 900_000; // the first `npm start` builds (2–5 min on 2 cores)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const DIST_DIR = process.env.BELLWETHER_DIST_DIR || ".next-bench";
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** No request of the benchmark may hang it: an app that stops answering fails the run. */
const REQUEST_TIMEOUT_MS = 120_000;

/** The build `npm start` serves (scripts/start.ts rebuilds DIST_DIR when the sources changed). */
function buildId(): string {
  try {
    return fs.readFileSync(path.join(ROOT, DIST_DIR, "BUILD_ID"), "utf8").trim();
  } catch {
    return "";
  }
}

/** Progress on stderr (the report is stdout): the app starts can take minutes when a build is needed. */
const progress = (line: string) => process.stderr.write(`  [scheduler] ${line}\n`);

/** Scheduler variables stripped from what the apps inherit, so "on" is the default install (auto, default poll). */
const SCHEDULER_ENV = ["SCHEDULER", "SCHEDULER_POLL_MS", "WORKER_POLL_MS", "VERCEL", "AWS_LAMBDA_FUNCTION_NAME"];

type TApp = {
  label: string;
  /** The BUILD_ID it started on: another start that rebuilt DIST_DIR meanwhile leaves this app broken. */
  buildId: string;
  url: string;
  root: number;
  cronSecret: string;
  /** The last lines the app printed (for error messages). */
  tail: () => string;
  stop: () => Promise<void>;
};

/**
 * `npm start` on a fresh embedded database in a temporary directory, in a process group of its own (so the whole
 * tree stops together), on its own build directory (BELLWETHER_DIST_DIR, default .next-bench), rules mode,
 * refreshes not rate-limited. Resolves once it says "ready".
 */
async function startApp(label: string, env: Record<string, string>, clockFile?: string): Promise<TApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-scheduler-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const cronSecret = randomBytes(24).toString("base64url");
  const inherited = { ...process.env };
  for (const name of SCHEDULER_ENV) delete inherited[name];
  const proc: ChildProcess = spawn("npm", ["start"], {
    env: {
      ...inherited,
      BELLWETHER_DIST_DIR: DIST_DIR,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      LOG_LEVEL: "warn",
      DATABASE_URL: "",
      AI_PROVIDER: "rules",
      CRON_SECRET: cronSecret,
      ...FIXTURE_HOST_ENV,
      RATE_LIMIT_REFRESHES: "0",
      ...(clockFile
        ? {
            NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${pathToFileURL(PRELOAD).href}`.trim(),
            BELLWETHER_BENCH_CLOCK_FILE: clockFile,
          }
        : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const group = appGroup(proc);
  const root = group.root;
  /** The group's graceful stop (SIGTERM, SIGKILL after 15 s); then the data directory goes. */
  const stop = async () => {
    await group.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  progress(`starting ${label} (npm start; builds ${DIST_DIR} first when the sources changed)…`);
  try {
    await waitForOutput(proc, /\[bellwether\] ready in/, READY_TIMEOUT_MS);
  } catch (error) {
    await stop();
    throw error;
  }
  progress(`${label} ready on ${url}`);
  return { label, buildId: buildId(), url, root, cronSecret, tail: group.tail, stop };
}

/** The public API with a bearer token; throws on a non-2xx answer. */
function apiClient(url: string, token: string) {
  return async <TBody>(method: string, pathname: string, body?: unknown): Promise<TBody> => {
    const res = await fetch(`${url}/api/v1${pathname}`, {
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${pathname}: HTTP ${res.status} ${text.slice(0, 500)}`);
    return JSON.parse(text) as TBody;
  };
}

type TApi = ReturnType<typeof apiClient>;
type TRefreshAnswer = { run: { runId: string; status: string; outcome: string | null; summary: string } };
type TTimelinePage = { items: { id: string; runId: string; trackerId: string; materiality: string }[] };
type TRunsPage = {
  runs: { id: string; trigger: string; outcome: string | null; createdAt: string; durationMs: number | null }[];
};
type TTrackerList = { trackers: { id: string; lastRunAt: string | null; nextRunAt: string | null }[] };
type THealth = {
  ok: boolean;
  scheduler: {
    enabled: boolean;
    running: boolean;
    reason: string;
    lastPassAt: string | null;
    lagSeconds: number | null;
  };
};

async function createTracker(api: TApi, target: string): Promise<string> {
  const created = await api<{ tracker: { id: string } }>("POST", "/trackers", {
    decision: "Is this competitor undercutting our Pro plan?",
    capability: "web.scrape",
    capabilityInput: { url: target },
    scheduleMinutes: DAILY,
    definition: ACME_PRICING_DEFINITION,
  });
  return created.tracker.id;
}

/** The change a run recorded (its timeline entry's id: what the webhook's changes[].changeId carries). */
async function changeOfRun(api: TApi, trackerId: string, runId: string): Promise<string> {
  const page = await api<TTimelinePage>("GET", `/trackers/${trackerId}/timeline?limit=10`);
  const entry = page.items.find((e) => e.runId === runId);
  if (!entry) throw new Error(`run ${runId} recorded no timeline entry`);
  return entry.id;
}

/** When a run finished, on the app's clock (ms): its startedAt (the view's createdAt) + its duration. */
async function finishedAt(api: TApi, trackerId: string, runId: string, triggers: string[] = []): Promise<number> {
  const { runs } = await api<TRunsPage>("GET", `/trackers/${trackerId}/runs?limit=10`);
  const run = runs.find((r) => r.id === runId);
  if (!run || run.durationMs === null) throw new Error(`run ${runId} is not a finished run of ${trackerId}`);
  triggers.push(run.trigger);
  return Date.parse(run.createdAt) + run.durationMs;
}

type TArrival = { perf: number; wall: number; changeIds: string[]; trackerIds: string[] };

/** A local webhook receiver (tests/helpers/notify-receivers.ts) that notes when each delivery arrived. */
async function timedReceiver() {
  const hook = await startWebhookReceiver();
  const times: { perf: number; wall: number }[] = [];
  hook.answer((n) => {
    times[n] = { perf: performance.now(), wall: Date.now() };
    return 200;
  });
  const parsed: TArrival[] = [];
  const arrivals = (): TArrival[] => {
    for (let n = parsed.length; n < hook.received.length; n++) {
      const time = times[n] ?? { perf: Number.NaN, wall: Number.NaN };
      let changes: { changeId?: string; trackerId?: string }[] = [];
      try {
        changes = (JSON.parse(hook.received[n]?.body ?? "{}") as { changes?: typeof changes }).changes ?? [];
      } catch {
        // not JSON: no changes
      }
      parsed.push({
        ...time,
        changeIds: changes.flatMap((c) => (c.changeId ? [c.changeId] : [])),
        trackerIds: changes.flatMap((c) => (c.trackerId ? [c.trackerId] : [])),
      });
    }
    return parsed;
  };
  /** The first delivery matching `test`, waiting up to `timeoutMs` (its arrival time was taken when it came in). */
  const waitFor = async (test: (a: TArrival) => boolean, timeoutMs: number, what: string): Promise<TArrival> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const hit = arrivals().find(test);
      if (hit) return hit;
      if (performance.now() > deadline) throw new Error(`no webhook for ${what} within ${timeoutMs} ms`);
      await sleep(5);
    }
  };
  return { url: hook.url, arrivals, waitFor, close: hook.close };
}

type TLatencyReport = {
  refreshAnswered: number[];
  refreshSent: number[];
  refreshItself: number[];
  refreshAfterRun: number[];
  warmup: number[];
  afterRun: number[];
  afterDue: number[];
  schedulerTriggers: string[];
  deliveries: number;
};

async function measureDelivery(
  samples: number,
  schedulerSamples: number,
  out: (line: string) => void,
): Promise<TLatencyReport> {
  const report: TLatencyReport = {
    refreshAnswered: [],
    refreshSent: [],
    refreshItself: [],
    refreshAfterRun: [],
    warmup: [],
    afterRun: [],
    afterDue: [],
    schedulerTriggers: [],
    deliveries: 0,
  };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "bw-scheduler-clock-"));
  const clockFile = path.join(work, "clock-offset-ms");
  const site = await startFixtureSite();
  const hook = await timedReceiver();
  const page: TBenchPage = makeBenchPage(0, 42, { min: 20, max: 50 });
  const basePrice = page.price;
  const serve = () => site.setPage(page.path, { body: renderBenchPage(page) });
  /** Every step moves the price 25% (up, then back): material under the definition's 5% rule. */
  const movePrice = () => {
    page.price = page.price === basePrice ? Math.round(basePrice * 125) / 100 : basePrice;
    serve();
  };
  serve();
  let app: TApp | undefined;
  try {
    app = await startApp(
      "delivery",
      { FETCH_ALLOW_HOSTS: [new URL(site.url).host, new URL(hook.url).host].join(",") },
      clockFile,
    );
    const { url } = app;
    const cookie = await createOwner(url);
    const api = apiClient(url, await createApiToken(url, cookie, "scheduler bench"));
    await trpcMutation(url, cookie, "notification.createChannel", {
      kind: "webhook",
      name: "scheduler bench",
      target: hook.url,
    });
    const trackerId = await createTracker(api, site.urlFor(page.path));
    // The baseline: by Refresh now, or by the scheduler if its pass came first (then ours is skipped; ask again).
    for (let attempt = 0; ; attempt++) {
      const first = await api<TRefreshAnswer>("POST", `/trackers/${trackerId}/refresh`);
      if (first.run.status === "completed") break;
      if (attempt >= 60) throw new Error(`the baseline never completed: ${JSON.stringify(first.run)}`);
      await sleep(500);
    }

    progress(`${WARMUP_SAMPLES} + ${samples} Refresh now samples…`);
    for (let i = 0; i < WARMUP_SAMPLES + samples; i++) {
      movePrice();
      const sent = performance.now();
      const answer = await api<TRefreshAnswer>("POST", `/trackers/${trackerId}/refresh`);
      const answered = performance.now();
      if (answer.run.status !== "completed" || answer.run.outcome !== "material") {
        throw new Error(`Refresh now ${i + 1} did not record a material change: ${JSON.stringify(answer.run)}`);
      }
      const changeId = await changeOfRun(api, trackerId, answer.run.runId);
      const arrival = await hook.waitFor((a) => a.changeIds.includes(changeId), 30_000, `change ${changeId}`);
      if (i < WARMUP_SAMPLES) {
        report.warmup.push(arrival.perf - answered);
        continue;
      }
      report.refreshAnswered.push(arrival.perf - answered);
      report.refreshSent.push(arrival.perf - sent);
      report.refreshItself.push(answered - sent);
      report.refreshAfterRun.push(arrival.wall - (await finishedAt(api, trackerId, answer.run.runId)));
    }

    let offsetMs = 0;
    const pollMs = DEFAULT_SCHEDULER_POLL_MS;
    const phase = seededRandom(42);
    for (let i = 0; i < schedulerSamples; i++) {
      // A change comes at any point of the scheduler's sleep, not just after a pass (when the previous sample's
      // webhook arrives): start each sample at a random phase of the poll.
      await sleep(phase() * pollMs);
      progress(`scheduler sample ${i + 1} of ${schedulerSamples}: clock moved a day on, waiting for the next pass…`);
      movePrice();
      const before = hook.arrivals().length;
      offsetMs += DAY_AND_MORE_MS;
      fs.writeFileSync(clockFile, String(offsetMs));
      const moved = performance.now(); // the app re-reads the offset within 100 ms: due from (about) now
      const arrival = await hook.waitFor(
        (a) => hook.arrivals().indexOf(a) >= before && a.trackerIds.includes(trackerId),
        4 * pollMs + 60_000,
        `the scheduler's change ${i + 1}`,
      );
      const changeId = arrival.changeIds[arrival.trackerIds.indexOf(trackerId)] as string;
      const timeline = await api<TTimelinePage>("GET", `/trackers/${trackerId}/timeline?limit=10`);
      const runId = timeline.items.find((e) => e.id === changeId)?.runId;
      if (!runId) throw new Error(`change ${changeId} is not on the timeline`);
      const triggers: string[] = [];
      // finishedAt is on the app's clock; the arrival on the real clock + the offset the app adds (same host clock).
      report.afterRun.push(arrival.wall + offsetMs - (await finishedAt(api, trackerId, runId, triggers)));
      report.schedulerTriggers.push(...triggers);
      report.afterDue.push(arrival.perf - moved);
    }
    report.deliveries = hook.arrivals().length;
    out(`  delivery app: ${url}, one webhook channel → ${hook.url}; tracker ${trackerId} on ${site.urlFor(page.path)}`);
    return report;
  } catch (error) {
    if (app) out(`  the app's last output:\n${app.tail()}`);
    throw error;
  } finally {
    await app?.stop();
    await hook.close();
    await site.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

type TIdleSide = {
  app: TApp;
  healthBefore: THealth;
  healthAfter: THealth;
  cpuMs: number;
  processes: { name: string; ms: number }[];
  windowMs: number;
  /** CPU ms of each of IDLE_SLICES equal parts of the window. */
  slices: number[];
  /** Some tracker's lastRunAt moved during the window (it was not idle). */
  ranDuringWindow: boolean;
};

async function health(app: TApp): Promise<THealth> {
  const res = await fetch(`${app.url}/api/health`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${app.label}: /api/health answered ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as THealth;
}

/** Owner, token, N daily trackers; their baselines by the cron route until none is due (the scheduler may help). */
async function prepareIdleApp(app: TApp, site: TFixtureSite, pages: TBenchPage[]): Promise<TApi> {
  const cookie = await createOwner(app.url);
  const api = apiClient(app.url, await createApiToken(app.url, cookie, "scheduler bench"));
  for (const page of pages) await createTracker(api, site.urlFor(page.path));
  const deadline = performance.now() + 300_000;
  for (;;) {
    await cronPass(app.url, app.cronSecret);
    const { trackers } = await api<TTrackerList>("GET", "/trackers");
    const now = Date.now();
    const pending = trackers.filter((t) => !t.lastRunAt || !t.nextRunAt || Date.parse(t.nextRunAt) <= now);
    if (pending.length === 0) break;
    if (performance.now() > deadline) throw new Error(`${app.label}: ${pending.length} trackers still due`);
    await sleep(1000);
  }
  return api;
}

const lastRunSum = (list: TTrackerList) =>
  list.trackers.reduce((sum, t) => sum + (t.lastRunAt ? Date.parse(t.lastRunAt) : 0), 0);

async function measureIdle(
  trackers: number,
  idleSeconds: number,
  settleSeconds: number,
  out: (line: string) => void,
): Promise<TIdleSide[]> {
  const site = await startFixtureSite();
  const pages = Array.from({ length: trackers }, (_, i) => makeBenchPage(i, 42, { min: 20, max: 50 }));
  for (const page of pages) site.setPage(page.path, { body: renderBenchPage(page) });
  const allow = { FETCH_ALLOW_HOSTS: new URL(site.url).host };
  const apps: TApp[] = [];
  try {
    // One after the other, on one build: a start that finds the sources changed rebuilds DIST_DIR under the app
    // already running, which then answers 500 — so an app whose build was replaced is started again.
    const starts: [string, Record<string, string>][] = [
      ["scheduler on (default)", allow],
      ["SCHEDULER=off", { ...allow, SCHEDULER: "off" }],
    ];
    for (const [label, env] of starts) apps.push(await startApp(label, env));
    for (let attempt = 0; apps.some((app) => app.buildId !== buildId()); attempt++) {
      if (attempt >= 3) throw new Error(`${DIST_DIR} kept being rebuilt (are the sources being edited?)`);
      for (const [i, app] of apps.entries()) {
        if (app.buildId === buildId()) continue;
        progress(`${app.label}: its build was replaced meanwhile; starting it again`);
        await app.stop();
        const [label, env] = starts[i] as [string, Record<string, string>];
        apps[i] = await startApp(label, env);
      }
    }
    progress(`creating ${trackers} daily trackers in each app and running their baselines…`);
    const apis = await Promise.all(apps.map((app) => prepareIdleApp(app, site, pages)));
    progress(`settling ${settleSeconds} s, then measuring ${idleSeconds} s idle…`);
    await sleep(settleSeconds * 1000);
    const healthBefore = await Promise.all(apps.map(health));
    const [onBefore, offBefore] = healthBefore as [THealth, THealth];
    if (!onBefore.scheduler.running || offBefore.scheduler.running) {
      throw new Error(
        `the scheduler should run in the first app only: ${JSON.stringify(healthBefore.map((h) => h.scheduler))}`,
      );
    }
    const lastRunsBefore = await Promise.all(
      apis.map(async (api) => lastRunSum(await api<TTrackerList>("GET", "/trackers"))),
    );
    await sleep(2000); // past those requests' own work
    const t0 = performance.now();
    const cpu0 = apps.map((app) => treeCpuMs(app.root));
    // Read in slices too, to show whether the window was steady (a decay means the apps had not settled).
    const sliceMs = (idleSeconds * 1000) / IDLE_SLICES;
    const slices: number[][] = apps.map(() => []);
    let last = cpu0.map((c) => c.ms);
    for (let n = 1; n <= IDLE_SLICES; n++) {
      await sleep(t0 + n * sliceMs - performance.now());
      const now = apps.map((app) => treeCpuMs(app.root).ms);
      for (const [i, v] of now.entries()) slices[i]?.push(v - (last[i] as number));
      last = now;
    }
    const cpu1 = apps.map((app) => treeCpuMs(app.root));
    const windowMs = performance.now() - t0;
    const healthAfter = await Promise.all(apps.map(health));
    if (apps.some((app) => app.buildId !== buildId())) {
      throw new Error(`${DIST_DIR} was rebuilt during the measurement; the figures would mean nothing`);
    }
    const lastRunsAfter = await Promise.all(
      apis.map(async (api) => lastRunSum(await api<TTrackerList>("GET", "/trackers"))),
    );
    return apps.map((app, i) => {
      const before = cpu0[i] as ReturnType<typeof treeCpuMs>;
      const after = cpu1[i] as ReturnType<typeof treeCpuMs>;
      return {
        app,
        healthBefore: healthBefore[i] as THealth,
        healthAfter: healthAfter[i] as THealth,
        cpuMs: after.ms - before.ms,
        processes: after.processes.map((p) => ({
          name: p.name,
          ms: p.ms - (before.processes.find((q) => q.pid === p.pid)?.ms ?? 0),
        })),
        windowMs,
        slices: slices[i] ?? [],
        ranDuringWindow: lastRunsAfter[i] !== lastRunsBefore[i],
      };
    });
  } catch (error) {
    for (const app of apps) out(`  ${app.label}: the app's last output:\n${app.tail()}`);
    throw error;
  } finally {
    await Promise.all(apps.map((app) => app.stop()));
    await site.close();
  }
}

const ms = (v: number) => fmt(v, 0);

export const schedulerBenchmark: TBenchmark = {
  name: "scheduler",
  description:
    "npm start's scheduler: change → webhook latency (Refresh now, scheduler pass) and idle CPU/min, on vs SCHEDULER=off",
  flags: [DELIVERY_SAMPLES, SCHEDULER_SAMPLES, IDLE_TRACKERS, IDLE_SECONDS, SETTLE_SECONDS],
  async run(args, out) {
    const samples = numberOption(args, DELIVERY_SAMPLES);
    const schedulerSamples = numberOption(args, SCHEDULER_SAMPLES);
    const idleTrackers = numberOption(args, IDLE_TRACKERS);
    const idleSeconds = numberOption(args, IDLE_SECONDS);
    const settleSeconds = numberOption(args, SETTLE_SECONDS);
    const pollMs = DEFAULT_SCHEDULER_POLL_MS;
    out(
      `  npm start on a fresh embedded database (build dir ${DIST_DIR}), rules mode, scheduler poll ${fmt(pollMs, 0)} ms (the default; SCHEDULER_POLL_MS unset), ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );

    if (samples + schedulerSamples > 0) {
      const r = await measureDelivery(samples, schedulerSamples, out);
      out("");
      out("  1. delivery latency: material change recorded → webhook received (ms; local receiver on 127.0.0.1)");
      const row = (label: string, values: number[]) => {
        const s = summarise(values);
        return [label, String(s.n), ms(s.p50), ms(s.p95), ms(s.min), ms(s.max)];
      };
      const rows = [["path", "n", "p50", "p95", "min", "max"]];
      if (samples > 0) {
        rows.push(
          row("Refresh now: refresh answered → webhook", r.refreshAnswered),
          row("Refresh now: run's finishedAt → webhook", r.refreshAfterRun),
          row("  (refresh sent → webhook)", r.refreshSent),
          row("  (the refresh request itself)", r.refreshItself),
        );
      }
      if (schedulerSamples > 0) {
        rows.push(
          row("scheduler: run's finishedAt → webhook", r.afterRun),
          row(`  (tracker due → webhook, incl. ≤ 1 poll)`, r.afterDue),
        );
      }
      out(table(rows));
      out(
        "  negative = the webhook came before the refresh's HTTP answer (the sender is woken once the change commits, while the route still answers); finishedAt = the run's startedAt + durationMs from GET …/runs, taken before its final write",
      );
      out(
        `  ${WARMUP_SAMPLES} warm-up Refresh now samples not counted (${r.warmup.map((v) => ms(v)).join(", ")} ms); ${r.deliveries} webhook deliveries received in all` +
          (schedulerSamples > 0
            ? `; scheduler samples' run triggers: ${r.schedulerTriggers.join(", ")} (app clock moved ${fmt(DAY_AND_MORE_MS / 60_000, 0)} min per sample)`
            : ""),
      );
    }

    if (idleSeconds > 0) {
      const sides = await measureIdle(idleTrackers, idleSeconds, settleSeconds, out);
      const [on, off] = sides as [TIdleSide, TIdleSide];
      const perMin = (s: TIdleSide) => (s.cpuMs * 60_000) / s.windowMs;
      out("");
      out(
        `  2. idle cost: ${idleTrackers} daily trackers per app, baselined, none due; both apps idle at the same time for ${fmt(on.windowMs / 1000)} s (after ${fmt(settleSeconds, 0)} s to settle)`,
      );
      out(
        table([
          ["app", "CPU ms in window", "CPU ms / min", "scheduler (/api/health after)", "lag s", "runs in window"],
          ...sides.map((s) => [
            s.app.label,
            ms(s.cpuMs),
            fmt(perMin(s), 1),
            `${s.healthAfter.scheduler.running ? "running" : "not running"}: ${s.healthAfter.scheduler.reason}`,
            String(s.healthAfter.scheduler.lagSeconds ?? "–"),
            s.ranDuringWindow ? "some (!)" : "none",
          ]),
        ]),
      );
      const diff = perMin(on) - perMin(off);
      const passesPerMin = 60_000 / pollMs;
      out(
        `  on − off: ${fmt(diff, 1)} CPU ms / min (≈ ${fmt(diff / passesPerMin, 1)} ms per idle pass at ~${fmt(passesPerMin, 0)} passes / min); on / off: ${fmt(perMin(on) / perMin(off), 2)}×; ${fmt((diff / 60_000) * 100, 3)} % of one core`,
      );
      for (const s of sides) {
        out(
          `  ${s.app.label}: ${s.processes.map((p) => `${p.name || "?"} ${ms(p.ms)} ms`).join("; ")}; per ${fmt(s.windowMs / IDLE_SLICES / 1000)} s: ${s.slices.map((v) => ms(v)).join(", ")} ms; last pass ${s.healthAfter.scheduler.lastPassAt ?? "–"}`,
        );
      }
      out("  (CPU = utime + stime of the npm start process tree from /proc, exited children included; 10 ms ticks)");
    }
  },
};

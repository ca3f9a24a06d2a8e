import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { detectListing } from "@/server/capabilities/web-scrape/listing";
import { applyMigrations, describePostgresUrl, pgClientRunner } from "@/server/db";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { urlForDatabase, withAdminClient } from "../helpers/db";
import { appGroup, createApiToken, createOwner, freePort, processTree, waitForOutput } from "./app-process";
import { BENCH_DATABASE_PREFIX } from "./bench-db";
import { FIXTURE_HOST_ENV } from "./fixture-host";
import { BenchUsageError, choiceOption, fmt, type TBenchArgs, type TBenchChoiceFlag, table } from "./harness";
import { since, startWireCounter, type TWireCounter, type TWireCounts } from "./pg-wire-counter";
import {
  dropPrice,
  LISTING_PATH,
  listingPage,
  productPath,
  SINGLE_DEFINITION,
  serveAll,
  setTrackerInput,
  startPrices,
} from "./set-pages";
import { max, median, min } from "./stats";

/**
 * The set benchmark through the route (tests/bench/README.md, "set"): the path users take. `npm start` (the
 * production build, built first when the sources changed, as the other app benchmarks do) on a throw-away PostgreSQL
 * database (or an embedded database on disk), fetching from the fixture site. Through the public API with an API
 * token: one set tracker (web.scrape with the listing plan over the N-product listing) and N single trackers (one
 * per product page), created active and locked at v1 — the same definitions as the in-process section. Then, in
 * interleaved rounds, each route refreshes each side unchanged and with one price changed:
 *
 *   cron         one call of GET /api/cron/refresh (CRON_SECRET), which refreshes every due tracker: the app's clock
 *                (set-route-clock.mjs) moves so that only the side measured is due (see `pass`)
 *   refresh-now  POST /api/v1/trackers/{id}/refresh per tracker, one after the other: "Refresh now" from a script
 *
 * Per pass: SQL statements at the wire (pg-wire-counter.ts), CPU of the app's whole process tree (every thread's
 * /proc/<pid>/task/<tid>/schedstat) and of the database's PostgreSQL backends (pg_stat_activity's pids,
 * /proc/<pid>/schedstat, as peer.bench does), wall time for orientation. A pass runs from a quiet app to a quiet app
 * (QUIET_MS without a statement), so the work a route leaves behind its answer — notifications, the feed's
 * enhancement after its debounce — is counted with it. One app holds both sides (an app per side would need two
 * starts, and a second start rebuilds the build under the first whenever a source changed in between).
 */

export type TRouteDbKind = "postgres" | "pglite";
export type TRouteName = "cron" | "refresh-now";

export const ROUTE_FLAG: TBenchChoiceFlag<TRouteName | "both"> = {
  name: "set-route",
  env: "BENCH_SET_ROUTE",
  default: "both",
  choices: ["cron", "refresh-now", "both"],
  description:
    "route section: the cron route (one call refreshes what is due; the app's clock makes the measured side due) and/or Refresh now (POST /api/v1/trackers/{id}/refresh per tracker)",
};

export const ROUTE_DB_FLAG: TBenchChoiceFlag<TRouteDbKind | "both"> = {
  name: "set-route-db",
  env: "BENCH_SET_ROUTE_DB",
  default: "postgres",
  choices: ["postgres", "pglite", "both"],
  description:
    "route section's database: a throw-away PostgreSQL database on TEST_DATABASE_URL's server (the default falls back to pglite without TEST_DATABASE_URL), embedded PGlite on disk (statements not counted), or both",
};

/** The databases the route section runs on; the default falls back to PGlite when TEST_DATABASE_URL is unset. */
export function routeDbKinds(args: TBenchArgs): { kinds: TRouteDbKind[]; note?: string } {
  const choice = choiceOption(args, ROUTE_DB_FLAG);
  const explicit = args.flags.has(ROUTE_DB_FLAG.name) || Boolean(args.env[ROUTE_DB_FLAG.env]?.trim());
  const hasPostgres = Boolean(args.env.TEST_DATABASE_URL?.trim());
  if (choice !== "pglite" && !hasPostgres) {
    if (explicit) {
      throw new BenchUsageError(
        `--set-route-db ${choice} needs TEST_DATABASE_URL (a PostgreSQL server URL whose user may create databases, e.g. postgresql://postgres@127.0.0.1:5432/postgres).`,
      );
    }
    return {
      kinds: ["pglite"],
      note: "TEST_DATABASE_URL is not set: the route section runs on embedded PGlite only (no statement count); set it for PostgreSQL",
    };
  }
  return { kinds: choice === "both" ? ["postgres", "pglite"] : [choice] };
}

export const routeNames = (args: TBenchArgs): TRouteName[] => {
  const choice = choiceOption(args, ROUTE_FLAG);
  return choice === "both" ? ["cron", "refresh-now"] : [choice];
};

/** The clock seam: moves the app's `Date` when signalled, idle otherwise (set-route-clock.mjs). */
const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), "set-route-clock.mjs");
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const DIST_DIR = process.env.BELLWETHER_DIST_DIR || ".next-bench";
const READY_TIMEOUT_MS = 900_000; // the first `npm start` builds (2–5 min on 2 cores)
const REQUEST_TIMEOUT_MS = 120_000;
/** The set tracker is hourly, the single trackers daily: the app's clock picks which side a cron call finds due. */
const SET_SCHEDULE = 60;
const SINGLES_SCHEDULE = 1440;
/** Before the set's cron pass: past its hour and jitter (≤ 6 min), far from the singles' day. */
const SET_STEP_MS = (SET_SCHEDULE + 10) * 60_000;
/** Before the singles' cron pass: past their day and jitter (≤ 5 min); the set tracker is paused meanwhile. */
const SINGLES_STEP_MS = (SINGLES_SCHEDULE + 10) * 60_000;
/** A pass ends once the app has sent no statement for this long (the feed's enhancement waits 500 ms first). */
const QUIET_MS = 1500;
/** On PGlite nothing shows the app's database work from outside: a fixed wait instead. */
const PGLITE_SETTLE_MS = 3000;
const MAX_SETTLE_MS = 30_000;
/** Idle probe before the rounds: what an app does on its own over this window. */
const IDLE_PROBE_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (line: string) => process.stderr.write(`  [set] ${line}\n`);

function buildId(): string {
  try {
    return fs.readFileSync(path.join(ROOT, DIST_DIR, "BUILD_ID"), "utf8").trim();
  } catch {
    return "";
  }
}

/** ns of CPU per thread of every process in the tree (/proc/<pid>/task/<tid>/schedstat: exact, not 10 ms ticks). */
export function treeThreadsNs(root: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of processTree(root)) {
    let tids: string[] = [];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // gone meanwhile
    }
    for (const tid of tids) {
      try {
        const ns = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
        if (Number.isFinite(ns)) out.set(`${pid}/${tid}`, ns);
      } catch {
        // gone meanwhile
      }
    }
  }
  return out;
}

/** CPU ms between two readings; a thread that appeared counts from zero; threads that ended are returned apart. */
export function cpuDelta(before: Map<string | number, number>, after: Map<string | number, number>) {
  let ns = 0;
  for (const [id, value] of after) ns += value - (before.get(id) ?? 0);
  let ended = 0;
  for (const id of before.keys()) if (!after.has(id)) ended++;
  return { ms: ns / 1e6, ended };
}

export function readSchedstatNs(pid: number): number | undefined {
  try {
    if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") return undefined;
    const ns = Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
    return Number.isFinite(ns) ? ns : undefined;
  } catch {
    return undefined;
  }
}

type TApp = {
  kind: TRouteDbKind;
  url: string;
  root: number;
  buildId: string;
  cronSecret: string;
  clockFile: string;
  offsetMs: number;
  wire?: TWireCounter;
  /** CPU ns of this app's database's backends by pid (PostgreSQL on this machine), else null. */
  backends: () => Promise<Map<number, number> | null>;
  tail: () => string;
  stop: () => Promise<void>;
};

export type TPostgres = { serverUrl: string; admin: import("pg").Client; version: string; local: boolean };

export async function openAdmin(serverUrl: string): Promise<TPostgres> {
  const pg = (await import("pg")).default;
  const admin = new pg.Client({ connectionString: serverUrl });
  admin.on("error", () => {});
  await admin.connect();
  const pid = Number((await admin.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid);
  const version = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? "?";
  return { serverUrl, admin, version: version.split(" ")[0] ?? version, local: readSchedstatNs(pid) !== undefined };
}

/** What to stop if the benchmark is interrupted (Ctrl+C): the app's process group, its database, its files. */
const stopping = new Set<() => Promise<void>>();

function onSignal(signal: NodeJS.Signals): void {
  progress(`${signal}: stopping the app and dropping its database…`);
  void Promise.allSettled([...stopping].map((stop) => stop())).finally(() =>
    process.exit(signal === "SIGINT" ? 130 : 143),
  );
}

/**
 * `npm start` in a process group of its own on its own build dir (BELLWETHER_DIST_DIR, default .next-bench), rules
 * mode, SCHEDULER=off (the routes below are the only refreshes), refreshes rate-limited as usual but with a limit no
 * pass reaches (the default 20 a minute would refuse a script's 100 Refresh-now calls; the count is still kept), the
 * clock preload. On PostgreSQL: a throw-away database, migrated here, reached through the wire counter.
 */
async function startApp(kind: TRouteDbKind, site: TFixtureSite, postgres: TPostgres | undefined): Promise<TApp> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "bw-set-route-"));
  const clockFile = path.join(work, "clock-offset-ms");
  fs.writeFileSync(clockFile, "0");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const cronSecret = randomBytes(24).toString("base64url");
  let wire: TWireCounter | undefined;
  let database: string | undefined;
  const cleanups: (() => Promise<void>)[] = [async () => fs.rmSync(work, { recursive: true, force: true })];
  let stopped: Promise<void> | undefined;
  const cleanup = () => {
    stopped ??= (async () => {
      for (const fn of cleanups.reverse()) await fn().catch(() => {});
      stopping.delete(cleanup);
    })();
    return stopped;
  };
  stopping.add(cleanup);
  try {
    if (kind === "postgres") {
      if (!postgres) throw new Error("PostgreSQL is not available");
      const name = `${BENCH_DATABASE_PREFIX}${process.pid}_set_${randomBytes(3).toString("hex")}`;
      await postgres.admin.query(`CREATE DATABASE "${name}"`);
      database = name;
      cleanups.push(async () => {
        await postgres.admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      });
      await withAdminClient(urlForDatabase(postgres.serverUrl, name), (client) =>
        applyMigrations(pgClientRunner(client)),
      );
      wire = await startWireCounter(postgres.serverUrl, name);
      const counter = wire;
      cleanups.push(() => counter.close());
    }
    const inherited = { ...process.env };
    for (const name of ["SCHEDULER_POLL_MS", "WORKER_POLL_MS", "VERCEL", "AWS_LAMBDA_FUNCTION_NAME"]) {
      delete inherited[name];
    }
    const proc: ChildProcess = spawn("npm", ["start"], {
      cwd: ROOT,
      env: {
        ...inherited,
        BELLWETHER_DIST_DIR: DIST_DIR,
        DATA_DIR: path.join(work, "data"),
        PORT: String(port),
        HOSTNAME: "127.0.0.1",
        LOG_LEVEL: "warn",
        DATABASE_URL: wire?.url ?? "",
        AUTH_SECRET: randomBytes(32).toString("base64url"),
        AI_PROVIDER: "rules",
        CRON_SECRET: cronSecret,
        ...FIXTURE_HOST_ENV,
        SCHEDULER: "off",
        RATE_LIMIT_REFRESHES: "1000000",
        FETCH_ALLOW_HOSTS: new URL(site.url).host,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${pathToFileURL(PRELOAD).href}`.trim(),
        BELLWETHER_BENCH_SIGNALLED_CLOCK_FILE: clockFile,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const group = appGroup(proc);
    const root = group.root;
    // Stopped before the database is dropped and the data directory removed (cleanups run after).
    cleanups.push(group.stop);
    progress(`starting the app on ${kind} (npm start; builds ${DIST_DIR} first when the sources changed)…`);
    await waitForOutput(proc, /\[bellwether\] ready in/, READY_TIMEOUT_MS);
    progress(`app ready on ${url}`);
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
      kind,
      url,
      root,
      buildId: buildId(),
      cronSecret,
      clockFile,
      offsetMs: 0,
      ...(wire ? { wire } : {}),
      backends,
      tail: group.tail,
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

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
type TCronAnswer = {
  claimed: number;
  completed: number;
  failed: number;
  errors: number;
  outcomes: Record<string, number>;
};

type TSideName = "set" | "singles";
type TSide = { name: TSideName; trackerIds: string[] };
type TContext = { app: TApp; api: TApi; sides: Record<TSideName, TSide> };

type TReading = { wire?: TWireCounts; tree: Map<string, number>; backends: Map<number, number> | null };

async function reading(app: TApp): Promise<TReading> {
  const backends = await app.backends();
  return { ...(app.wire ? { wire: app.wire.counts } : {}), tree: treeThreadsNs(app.root), backends };
}

/** Waits until the app has been quiet on the database for QUIET_MS (PGlite: a fixed wait); false if it never was. */
async function settle(app: TApp): Promise<boolean> {
  const wire = app.wire;
  if (!wire) {
    await sleep(PGLITE_SETTLE_MS);
    return true;
  }
  const deadline = performance.now() + MAX_SETTLE_MS;
  while (performance.now() - wire.lastActivity < QUIET_MS) {
    if (performance.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

export type TPass = {
  refreshes: number;
  outcomes: Record<string, number>;
  wire?: TWireCounts;
  kinds?: Map<string, number>;
  appCpuMs: number;
  pgCpuMs: number;
  threadsEnded: number;
  wallMs: number;
  /** The app never went quiet within MAX_SETTLE_MS before or after the pass. */
  restless: boolean;
};

/** Moves the app's clock on by `ms`: the offset file, then SIGUSR2 to the Next server, which acknowledges it. */
async function moveClock(app: TApp, ms: number): Promise<void> {
  app.offsetMs += ms;
  fs.writeFileSync(app.clockFile, String(app.offsetMs));
  const server = processTree(app.root).find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("next-server");
    } catch {
      return false;
    }
  });
  if (server === undefined) throw new Error("the app's Next server process was not found");
  const ack = `${app.clockFile}.${server}.ack`;
  process.kill(server, "SIGUSR2");
  for (let i = 0; i < 100; i++) {
    try {
      if (Number(fs.readFileSync(ack, "utf8")) === app.offsetMs) return;
    } catch {
      // not yet written
    }
    await sleep(50);
  }
  throw new Error("the app did not take the new clock offset within 5 s");
}

async function setStatus(ctx: TContext, ids: string[], status: "active" | "paused"): Promise<void> {
  for (const id of ids) await ctx.api("PUT", `/trackers/${id}/status`, { status });
}

/**
 * One pass of `route` over every tracker of `side`, measured from the moment the app is quiet until it is quiet again
 * after the route answered; outcomes as the route reported them. The cron route refreshes whatever is due, so the
 * clock decides which side that is: the set tracker is hourly and the single trackers daily; the set's pass moves the
 * app's clock 70 minutes (the set is due, the singles are not), the singles' pass moves it a day and the set tracker
 * is paused through the API for it (and resumed after, both outside the measurement).
 */
async function pass(ctx: TContext, side: TSide, route: TRouteName, baseline = false): Promise<TPass> {
  const { app } = ctx;
  const other = side.name === "set" ? ctx.sides.singles : ctx.sides.set;
  if (route === "cron") {
    if (side.name === "singles" && !baseline) await setStatus(ctx, other.trackerIds, "paused");
    await moveClock(app, side.name === "set" ? SET_STEP_MS : SINGLES_STEP_MS);
  }
  const quietBefore = await settle(app);
  app.wire?.resetKinds();
  const before = await reading(app);
  const started = performance.now();
  const outcomes: Record<string, number> = {};
  if (route === "cron") {
    const res = await fetch(`${app.url}/api/cron/refresh`, {
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headers: { authorization: `Bearer ${app.cronSecret}` },
    });
    const body = (await res.json()) as TCronAnswer;
    if (!res.ok) throw new Error(`the cron route answered ${res.status}: ${JSON.stringify(body)}`);
    Object.assign(outcomes, body.outcomes);
    if (body.failed) outcomes.failed = (outcomes.failed ?? 0) + body.failed;
    if (body.errors) outcomes.error = (outcomes.error ?? 0) + body.errors;
  } else {
    for (const id of side.trackerIds) {
      const answer = await ctx.api<TRefreshAnswer>("POST", `/trackers/${id}/refresh`);
      const key = answer.run.status === "completed" ? (answer.run.outcome ?? "?") : answer.run.status;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
  }
  const wallMs = performance.now() - started;
  const quietAfter = await settle(app);
  const after = await reading(app);
  const kinds = app.wire?.kinds();
  if (route === "cron" && side.name === "singles" && !baseline) await setStatus(ctx, other.trackerIds, "active");
  const tree = cpuDelta(before.tree, after.tree);
  const pg = before.backends && after.backends ? cpuDelta(before.backends, after.backends).ms : Number.NaN;
  return {
    refreshes: side.trackerIds.length,
    outcomes,
    ...(before.wire && after.wire ? { wire: since(before.wire, after.wire) } : {}),
    ...(kinds ? { kinds } : {}),
    appCpuMs: tree.ms,
    pgCpuMs: pg,
    threadsEnded: tree.ended,
    wallMs,
    restless: !quietBefore || !quietAfter,
  };
}

const describeOutcomes = (outcomes: Record<string, number>) =>
  Object.entries(outcomes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(", ") || "nothing";

type TStep = "unchanged" | "changed";
type TKey = `${TRouteName}/${TStep}/${TSideName}`;
const STEPS: readonly TStep[] = ["unchanged", "changed"];
const SIDES: readonly TSideName[] = ["set", "singles"];
const routeLabel = (route: TRouteName) => (route === "cron" ? "cron route" : "Refresh now");
const stepLabel = (step: TStep) => (step === "unchanged" ? "unchanged" : "one price changed");

/**
 * Runs the route section on one database kind; returns false when some refresh did not complete as expected (the
 * caller exits non-zero).
 */
async function runOnDb(
  kind: TRouteDbKind,
  n: number,
  rounds: number,
  routes: TRouteName[],
  postgres: TPostgres | undefined,
  out: (line: string) => void,
): Promise<boolean> {
  const site = await startFixtureSite();
  const prices = startPrices(n);
  serveAll(site, prices);
  const listingUrl = site.urlFor(LISTING_PATH);
  const detected = detectListing(listingPage(prices), listingUrl);
  if (!detected) throw new Error("the bench listing was not detected as a listing");
  let app: TApp | undefined;
  let ok = true;
  try {
    app = await startApp(kind, site, postgres);
    // Through the public API, as a person's script would: owner, token, trackers (created active, locked at v1).
    const cookie = await createOwner(app.url);
    const api = apiClient(app.url, await createApiToken(app.url, cookie, "set bench"));
    const ctx: TContext = {
      app,
      api,
      sides: { set: { name: "set", trackerIds: [] }, singles: { name: "singles", trackerIds: [] } },
    };
    const created = await api<{ tracker: { id: string } }>("POST", "/trackers", {
      decision: "Did the catalogue add, drop or reprice any product?",
      capability: "web.scrape",
      scheduleMinutes: SET_SCHEDULE,
      ...setTrackerInput(listingUrl, detected.plan, n),
    });
    ctx.sides.set.trackerIds.push(created.tracker.id);
    progress(`creating ${n} single trackers through the API…`);
    for (let i = 0; i < n; i++) {
      const single = await api<{ tracker: { id: string } }>("POST", "/trackers", {
        decision: `Did product ${i} get cheaper?`,
        capability: "web.scrape",
        capabilityInput: { url: site.urlFor(productPath(i)) },
        scheduleMinutes: SINGLES_SCHEDULE,
        definition: SINGLE_DEFINITION,
      });
      ctx.sides.singles.trackerIds.push(single.tracker.id);
    }

    const expect = (label: string, p: TPass, wanted: Record<string, number>) => {
      const good =
        Object.keys({ ...wanted, ...p.outcomes }).every((k) => (p.outcomes[k] ?? 0) === (wanted[k] ?? 0)) &&
        (p.wire === undefined || p.wire.statements > 0);
      if (!good) {
        ok = false;
        out(`  ! ${kind}, ${label}: ${describeOutcomes(p.outcomes)} (expected ${describeOutcomes(wanted)})`);
      }
    };

    // Baselines: every tracker is due at once when created, so one cron call takes them all (not measured).
    progress("baselines by the cron route…");
    const baseline = await pass(ctx, ctx.sides.singles, "cron", true);
    expect("baselines", baseline, { baseline: n + 1 });
    // What the app does on its own meanwhile (nothing due, scheduler off).
    await settle(app);
    const idleBefore = await reading(app);
    await sleep(IDLE_PROBE_MS);
    const idleAfter = await reading(app);
    const idle = {
      statements: idleBefore.wire && idleAfter.wire ? since(idleBefore.wire, idleAfter.wire).statements : Number.NaN,
      cpuMs:
        cpuDelta(idleBefore.tree, idleAfter.tree).ms +
        (idleBefore.backends && idleAfter.backends ? cpuDelta(idleBefore.backends, idleAfter.backends).ms : 0),
    };

    const results = new Map<TKey, TPass[]>();
    let moved = 0;
    const total = rounds + 1; // round 0 warms both routes up (first calls compile and fill caches); not counted
    for (let round = 0; round < total; round++) {
      progress(round === 0 ? "warm-up round…" : `round ${round} of ${rounds}…`);
      const routeOrder = round % 2 === 0 ? routes : [...routes].reverse();
      const sideOrder = round % 2 === 0 ? SIDES : [...SIDES].reverse();
      for (const route of routeOrder) {
        for (const step of STEPS) {
          if (step === "unchanged") serveAll(site, prices);
          else dropPrice(site, prices, (moved++ * 7) % n);
          for (const sideName of sideOrder) {
            const side = ctx.sides[sideName];
            const p = await pass(ctx, side, route);
            const wanted: Record<string, number> =
              step === "unchanged"
                ? { unchanged: side.trackerIds.length }
                : sideName === "set"
                  ? { material: 1 }
                  : { material: 1, unchanged: n - 1 };
            expect(`${route}, ${step}, ${sideName}${round === 0 ? " (warm-up)" : ""}`, p, wanted);
            if (round === 0) continue;
            const key: TKey = `${route}/${step}/${sideName}`;
            results.set(key, [...(results.get(key) ?? []), p]);
          }
        }
      }
    }
    if (app.buildId !== buildId()) {
      ok = false;
      out(`  ! ${DIST_DIR} was rebuilt during the measurement (another start?); the figures would mean nothing`);
    }

    // ---- Report ---------------------------------------------------------------------------------------------
    const m = (ps: TPass[], pick: (p: TPass) => number) => median(ps.map(pick));
    const cpuTotal = (p: TPass) => p.appCpuMs + (Number.isNaN(p.pgCpuMs) ? 0 : p.pgCpuMs);
    const allStatements = (p: TPass) => (p.wire?.statements ?? Number.NaN) + (p.wire?.control ?? Number.NaN);
    const hasWire = kind === "postgres";
    const hasPg = hasWire && postgres?.local === true;
    const where =
      kind === "postgres"
        ? `PostgreSQL ${postgres?.version} at ${describePostgresUrl(postgres?.serverUrl ?? "")} (a throw-away database; statements counted at the wire)`
        : "embedded PGlite on disk in the app's process (statements not countable from outside; its CPU is in the app's)";
    out("");
    out(
      `  through the route on ${kind}: npm start (${DIST_DIR}, rules mode, SCHEDULER=off) on ${where}; trackers made through the public API; medians of ${rounds} rounds after a warm-up, order alternating`,
    );
    const rows: string[][] = [
      [
        "route, pages, side",
        "refreshes",
        "statements + BEGIN/COMMIT",
        "stmts / refresh",
        "transactions",
        "new conns",
        "CPU ms app tree",
        "CPU ms PostgreSQL",
        "CPU ms total",
        "CPU ms / refresh",
        "wall ms",
      ],
    ];
    for (const route of routes) {
      for (const step of STEPS) {
        for (const sideName of SIDES) {
          const ps = results.get(`${route}/${step}/${sideName}`) ?? [];
          const refreshes = ps[0]?.refreshes ?? 0;
          rows.push([
            `${routeLabel(route)}, ${stepLabel(step)}, ${sideName === "set" ? "set tracker" : `${n} singles`}`,
            String(refreshes),
            hasWire
              ? `${fmt(
                  m(ps, (p) => p.wire?.statements ?? Number.NaN),
                  0,
                )} + ${fmt(
                  m(ps, (p) => p.wire?.control ?? Number.NaN),
                  0,
                )}`
              : "n/a",
            hasWire ? fmt(m(ps, (p) => p.wire?.statements ?? Number.NaN) / refreshes, 2) : "n/a",
            hasWire
              ? fmt(
                  m(ps, (p) => p.wire?.transactions ?? Number.NaN),
                  0,
                )
              : "n/a",
            hasWire
              ? fmt(
                  m(ps, (p) => p.wire?.connections ?? Number.NaN),
                  0,
                )
              : "n/a",
            fmt(
              m(ps, (p) => p.appCpuMs),
              1,
            ),
            hasPg
              ? fmt(
                  m(ps, (p) => p.pgCpuMs),
                  1,
                )
              : "n/a",
            fmt(m(ps, cpuTotal), 1),
            fmt(m(ps, cpuTotal) / refreshes, 2),
            fmt(
              m(ps, (p) => p.wallMs),
              0,
            ),
          ]);
        }
      }
    }
    out(table(rows));
    const ratioRows: string[][] = [
      [
        "set ÷ singles",
        "statements (all)",
        "CPU, total",
        "CPU, total (paired rounds, min–max)",
        "CPU, app tree",
        "CPU, PostgreSQL",
      ],
    ];
    for (const route of routes) {
      for (const step of STEPS) {
        const s = results.get(`${route}/${step}/set`) ?? [];
        const g = results.get(`${route}/${step}/singles`) ?? [];
        const paired = s.map((p, i) => cpuTotal(p) / cpuTotal(g[i] as TPass));
        ratioRows.push([
          `${routeLabel(route)}, ${stepLabel(step)}`,
          hasWire ? fmt(m(s, allStatements) / m(g, allStatements), 3) : "n/a",
          fmt(m(s, cpuTotal) / m(g, cpuTotal), 3),
          `${fmt(min(paired), 3)}–${fmt(max(paired), 3)}`,
          fmt(m(s, (p) => p.appCpuMs) / m(g, (p) => p.appCpuMs), 3),
          hasPg ? fmt(m(s, (p) => p.pgCpuMs) / m(g, (p) => p.pgCpuMs), 3) : "n/a",
        ]);
      }
    }
    out(table(ratioRows));
    out(
      `  idle, ${fmt(IDLE_PROBE_MS / 1000, 0)} s after the baselines (nothing due): ${hasWire ? `${fmt(idle.statements, 0)} statements, ` : ""}${fmt(idle.cpuMs, 1)} CPU ms` +
        `; each pass also holds its wait for quiet after the route answered (${hasWire ? `${fmt(QUIET_MS, 0)} ms without a statement` : `${fmt(PGLITE_SETTLE_MS, 0)} ms`}), and the idle CPU over that wait is in every figure above`,
    );
    const ended = [...results.values()].flat().reduce((sum, p) => sum + p.threadsEnded, 0);
    if (ended > 0) out(`  (${ended} app threads ended during measured passes; their CPU in those passes is missing)`);
    const restless = [...results.values()].flat().filter((p) => p.restless).length;
    if (restless > 0) {
      out(
        `  ! in ${restless} measured pass(es) the app sent statements for ${fmt(MAX_SETTLE_MS / 1000, 0)} s without a ${fmt(QUIET_MS, 0)} ms pause: those passes hold other work too`,
      );
    }
    if (hasWire) {
      out("  statements by kind, last round (named = the hot prepared statements of server/db-hot-statements.ts):");
      for (const route of routes) {
        for (const step of STEPS) {
          for (const sideName of SIDES) {
            const last = results.get(`${route}/${step}/${sideName}`)?.at(-1);
            const kinds = [...(last?.kinds ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
            out(`    ${route}, ${step}, ${sideName}: ${kinds.map(([k, c]) => `${k} ×${c}`).join("; ") || "none"}`);
          }
        }
      }
    }
    if ((app.wire?.opaque ?? 0) > 0) {
      out(`  ! ${app.wire?.opaque} connection(s) used TLS through the wire counter: their statements are missing`);
    }
    return ok;
  } catch (error) {
    if (app) out(`  the app's last output:\n${app.tail()}`);
    throw error;
  } finally {
    await app?.stop();
    await site.close();
  }
}

/** The route section on each database asked for; false when refreshes did not complete as expected. */
export async function runSetThroughRoute(
  args: TBenchArgs,
  n: number,
  rounds: number,
  out: (line: string) => void,
): Promise<boolean> {
  const { kinds, note } = routeDbKinds(args);
  const routes = routeNames(args);
  if (note) out(`  ${note}`);
  let postgres: TPostgres | undefined;
  let ok = true;
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    if (kinds.includes("postgres")) postgres = await openAdmin(args.env.TEST_DATABASE_URL?.trim() ?? "");
    for (const kind of kinds) ok = (await runOnDb(kind, n, rounds, routes, postgres, out)) && ok;
  } finally {
    await postgres?.admin.end().catch(() => {});
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return ok;
}

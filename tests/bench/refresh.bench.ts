import { spawn } from "node:child_process";
import { once } from "node:events";
import { performance as nodePerformance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { executeCapability, hashStructuredDocument, type TCapabilityConfig } from "@/server/capabilities";
import type { TDb } from "@/server/db";
import { queryHot } from "@/server/db-hot-statements";
import { Prisma } from "@/server/generated/prisma/client";
import { refreshTracker, type TRefreshOptions, type TRefreshResult } from "@/server/intelligence/refresh";
import { ensureEntity, writeCurrentState } from "@/server/timeline";
import { createTracker } from "@/server/trackers";
import { runDueRefreshes } from "@/server/triggers";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";
import {
  addResources,
  assertDbAvailable,
  DB_FLAG,
  dbKinds,
  markResources,
  NO_RESOURCES,
  openBenchDb,
  resourcesSince,
  STATEMENTS_FLAG,
  type TBenchDb,
  type TBenchDbChoice,
  type TBenchDbKind,
  type TBenchStatements,
  type TResources,
} from "./bench-db";
import { BENCH_DECISION, BENCH_DEFINITION, fillRecordings, quietLogger } from "./bench-trackers";
import {
  BenchUsageError,
  choiceOption,
  fmt,
  numberOption,
  runPool,
  settleBeforePass,
  type TBenchArgs,
  type TBenchChoiceFlag,
  type TBenchFlag,
  type TBenchmark,
  table,
} from "./harness";
import { startModelServerProcess, type TModelServerProcess } from "./model-server-process";
import { makeBenchPage, renderBenchPage, type TBenchPage } from "./pages";
import type { TStatementKind, TStatementScope } from "./sql-counter";
import { max, mean, median, min, percentile, seededRandom, sum } from "./stats";

/**
 * Refresh benchmark: N web.scrape trackers against the local fixture site, refreshed round after round
 * while ~10% of the pages change price between rounds. Two sides run over the very same pages, one after
 * the other within each round, alternating which goes first:
 *
 *   hot loop  refreshTracker(): one read (lease + tracker, locked definition, entities with hashes and
 *             records, idempotency answer) + web.scrape (fetch + format) + hash pre-check + [fill (1 model
 *             call) + diff + judge by rules] + ONE fenced final write (run record, usage-ledger row, tracker
 *             bookkeeping and the timeline's part: the state stamp, or change row + outbox + state + capture).
 *   floor     the same web.scrape call + the same hash + one UPDATE of an entity-state row; no run,
 *             lease, ledger, fill, judge or change rows.
 *
 * The floor is what any refresh must pay at least; hot/floor throughput is the cost of the engine.
 * Both share one process, one database and one fixture site, so machine noise hits both alike; the
 * per-round ratio (paired) is the number to watch, not the absolute rates.
 *
 * `--db pglite|postgres|both` picks the database (bench-db.ts); with `both` the whole benchmark runs on
 * each in turn, over the same pages, and a last table puts the two side by side. Besides throughput,
 * each side's passes are measured for statements (at the driver, per refresh by async context, so
 * unchanged and changed pages are told apart), CPU (this process; on PostgreSQL also its backends),
 * storage growth and WAL bytes.
 */

const WARM_UP_TRACKERS = 50;

/**
 * Which entry of the hot loop the hot side runs: `refresh` = refreshTracker() per tracker (its own lease read: the
 * manual "Refresh now", the API and the agent); `claim` = runDueRefreshes(), the claim loop of the cron route and
 * the worker (one statement claims a batch and loads every bundle, then one final write per tracker) — what runs
 * on every schedule tick. `both` runs the whole benchmark once per path.
 */
type THotPath = "refresh" | "claim";
const HOT_PATH_FLAG: TBenchChoiceFlag<THotPath | "both"> = {
  name: "hot-path",
  env: "BENCH_HOT_PATH",
  default: "both",
  choices: ["refresh", "claim", "both"],
  description: "hot side: refreshTracker() per tracker (manual/API), the cron/worker claim loop, or both in turn",
};
const DAY_MS = 24 * 60 * 60_000;

type TOptions = {
  trackers: number;
  rounds: number;
  concurrency: number;
  changeRate: number;
  modelLatencyMs: number;
  seed: number;
  minKb: number;
  maxKb: number;
  /** Trackers in the serial (concurrency 1) profile that explains where the time goes; 0 = skip. */
  profile: number;
};

/** The flags this benchmark reads; `--help` prints them from here. */
const FLAGS = {
  trackers: {
    name: "trackers",
    env: "BENCH_TRACKERS",
    default: 200,
    min: 1,
    max: 100_000,
    integer: true,
    description: "web.scrape trackers, one fixture page each",
  },
  rounds: {
    name: "rounds",
    env: "BENCH_ROUNDS",
    default: 6,
    min: 1,
    max: 1000,
    integer: true,
    description: "measured rounds (after one warm-up)",
  },
  concurrency: {
    name: "concurrency",
    env: "BENCH_CONCURRENCY",
    default: 8,
    min: 1,
    max: 1000,
    integer: true,
    description: "refreshes in flight per side",
  },
  changeRate: {
    name: "change-rate",
    env: "BENCH_CHANGE_RATE",
    default: 0.1,
    min: 0,
    max: 1,
    description: "share of pages whose price moves each round",
  },
  modelLatencyMs: {
    name: "model-latency-ms",
    env: "BENCH_MODEL_LATENCY_MS",
    default: 0,
    min: 0,
    max: 60_000,
    description: "added fixture-model latency (e.g. 800 to see a real model dominate changed pages)",
  },
  seed: {
    name: "seed",
    env: "BENCH_SEED",
    default: 42,
    min: 0,
    max: 2 ** 31,
    integer: true,
    description: "seed for pages and price moves",
  },
  minKb: { name: "min-kb", env: "BENCH_PAGE_MIN_KB", default: 20, min: 1, max: 2000, description: "smallest page, KB" },
  maxKb: { name: "max-kb", env: "BENCH_PAGE_MAX_KB", default: 50, min: 1, max: 4000, description: "largest page, KB" },
  profile: {
    name: "profile",
    env: "BENCH_PROFILE_TRACKERS",
    default: 30,
    min: 0,
    max: 100_000,
    integer: true,
    description: "trackers in the serial profile (0 skips it)",
  },
} satisfies Record<keyof TOptions, TBenchFlag>;

type TRunOptions = TOptions & { db: TBenchDbChoice; statements: TBenchStatements; hotPath: THotPath | "both" };

function readOptions(args: TBenchArgs): TRunOptions {
  const o = Object.fromEntries(Object.entries(FLAGS).map(([key, flag]) => [key, numberOption(args, flag)])) as TOptions;
  if (o.maxKb < o.minKb) {
    throw new BenchUsageError(`--max-kb (${o.maxKb}) must not be smaller than --min-kb (${o.minKb}).`);
  }
  return {
    ...o,
    db: choiceOption(args, DB_FLAG),
    statements: choiceOption(args, STATEMENTS_FLAG),
    hotPath: choiceOption(args, HOT_PATH_FLAG),
  };
}

type TTarget = { page: TBenchPage; url: string; trackerId: string; floorEntityId: string; floorSalt: string };

type TPassCounts = {
  wallMs: number;
  /**
   * Time the process's main thread was busy during the pass (event-loop utilisation × wall): what bounds a side's
   * throughput when that thread is the bottleneck (its pages are read in worker threads, its statements run in the
   * database), whatever the total CPU.
   */
  mainMs: number;
  latencies: number[];
  /** Statements (not BEGIN/COMMIT), transaction control and transactions over the pass. */
  sql: number;
  control: number;
  transactions: number;
  resources: TResources;
};

type THotPass = TPassCounts & {
  results: TRefreshResult[];
  /** What each refresh sent, in target order. */
  scopes: TStatementScope[];
  modelRequests: number;
  /** CPU of the fixture model server's own process during the pass (the provider's side of the model calls). */
  modelServerCpuMs: number;
};

type TFloorPass = TPassCounts & { changedSeen: number; failed: number };

type TRound = { round: number; order: string; changed: Set<number>; hot: THotPass; floor: TFloorPass };

async function setup(db: TDb, site: TFixtureSite, pages: TBenchPage[]): Promise<TTarget[]> {
  const { id: userId } = await ensureLocalUser(db);
  const checkedAt = new Date();
  // Sequential: setup is not measured, and PGlite is one connection anyway.
  const targets: TTarget[] = [];
  for (const page of pages) {
    const url = site.urlFor(page.path);
    const { tracker } = await createActiveTracker(db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url },
      definition: BENCH_DEFINITION,
      decision: BENCH_DECISION,
    });
    // The floor's own row (its own draft tracker), so the two sides never see each other's hashes.
    const twin = await createTracker(db, {
      userId,
      decision: "Floor twin (benchmark)",
      capability: "web.scrape",
      capabilityInput: { url },
    });
    const entity = await ensureEntity(db, { trackerId: twin.id, entityKey: url });
    await writeCurrentState(db, { entityId: entity.id, fields: {}, contentHash: "", definitionVersion: 1, checkedAt });
    targets.push({ page, url, trackerId: tracker.id, floorEntityId: entity.id, floorSalt: `${twin.id}:v1` });
  }
  return targets;
}

/** Counters before a pass; `finish` turns them into the pass's figures (resource probes stay outside `wallMs`). */
async function startPass(bench: TBenchDb) {
  const mark = await markResources(bench);
  const { sql } = bench;
  const sql0 = sql.statements;
  const control0 = sql.control;
  const tx0 = sql.transactions;
  const elu0 = nodePerformance.eventLoopUtilization();
  return async (wallMs: number, latencies: number[]): Promise<TPassCounts> => {
    const mainMs = nodePerformance.eventLoopUtilization(elu0).active;
    const counts = {
      sql: sql.statements - sql0,
      control: sql.control - control0,
      transactions: sql.transactions - tx0,
    };
    return { wallMs, mainMs, latencies, ...counts, resources: await resourcesSince(bench, mark) };
  };
}

/** The claim path's clock: one day further every pass, so every tracker is due exactly once per pass. */
type TClaimClock = { now: Date };

async function hotPass(
  bench: TBenchDb,
  targets: TTarget[],
  options: TRefreshOptions,
  concurrency: number,
  models: TModelServerProcess,
  claim: TClaimClock | null,
): Promise<THotPass> {
  const model0 = await models.requestCount();
  const modelCpu0 = models.cpuMs();
  const finish = await startPass(bench);
  const modelServer = async () => ({
    modelRequests: (await models.requestCount()) - model0,
    modelServerCpuMs: models.cpuMs() - modelCpu0,
  });
  if (claim) {
    claim.now = new Date(claim.now.getTime() + DAY_MS);
    const now = claim.now;
    // The claim loop names its own runs (trigger cron, the claim's lease token); no idempotency key.
    const { idempotencyKey: _key, trigger: _trigger, ...refreshOptions } = options;
    const byTracker = new Map<string, { result: TRefreshResult; ms: number }>();
    const started = performance.now();
    const { statements, control } = await bench.sql.measure(() =>
      runDueRefreshes(bench.db, {
        trigger: "cron",
        concurrency,
        budgetMs: 60 * 60_000,
        maxTrackers: targets.length,
        now: () => now,
        ...(options.log ? { log: options.log } : {}),
        refreshOptions: { ...refreshOptions, now: () => now },
        onResult: ({ trackerId, result, ms }) => void byTracker.set(trackerId, { result, ms }),
      }),
    );
    const wallMs = performance.now() - started;
    // In target order (the warm-up claims any `targets.length` due trackers: its order does not matter).
    const inOrder = targets.map((t) => byTracker.get(t.trackerId));
    const done = inOrder.every((r) => r !== undefined) ? inOrder : [...byTracker.values()];
    const share = { statements: statements / Math.max(1, done.length), control: control / Math.max(1, done.length) };
    return {
      ...(await finish(
        wallMs,
        done.map((r) => r?.ms ?? Number.NaN),
      )),
      results: done.flatMap((r) => (r ? [r.result] : [])),
      // The claim is shared by its batch: each refresh gets the pass's mean (not attributable per page).
      scopes: done.map(() => share),
      ...(await modelServer()),
    };
  }
  const { latencies, results, wallMs } = await runPool(targets, concurrency, (t) =>
    bench.sql.measure(() => refreshTracker(bench.db, t.trackerId, options)),
  );
  return {
    ...(await finish(wallMs, latencies)),
    results: results.map((r) => r.value),
    scopes: results.map(({ statements, control }) => ({ statements, control })),
    ...(await modelServer()),
  };
}

/** The floor for one page: the same capability call and hash as the hot loop, then one UPDATE. */
async function floorRefresh(
  db: TDb,
  t: TTarget,
  config: TCapabilityConfig,
  lastHash: Map<string, string>,
): Promise<{ crawl: number; hash: number; update: number; changed: boolean } | null> {
  const t0 = performance.now();
  // The hash as the hot loop gets it: computed in the page worker beside the document (hashSalt), else here.
  const envelope = await executeCapability("web.scrape", { url: t.url }, { config, hashSalt: t.floorSalt });
  const t1 = performance.now();
  const results = envelope.results as { document?: unknown; contentHash?: string } | undefined;
  if (envelope.status !== "completed" || results?.document === undefined) return null;
  const contentHash = results.contentHash ?? hashStructuredDocument(results.document, t.floorSalt);
  const t2 = performance.now();
  // The same path the hot loop's statements take (named on the driver, or `$queryRaw` with --statements
  // unnamed), so the floor stays the cheapest way to write one row, not Prisma's model layer.
  await queryHot(
    db,
    Prisma.sql`UPDATE "EntityCurrentState" SET "contentHash" = ${contentHash}, "lastCheckedAt" = ${new Date()}
      WHERE "entityId" = ${t.floorEntityId}`,
  );
  const t3 = performance.now();
  const changed = lastHash.get(t.floorEntityId) !== contentHash;
  lastHash.set(t.floorEntityId, contentHash);
  return { crawl: t1 - t0, hash: t2 - t1, update: t3 - t2, changed };
}

async function floorPass(
  bench: TBenchDb,
  targets: TTarget[],
  config: TCapabilityConfig,
  lastHash: Map<string, string>,
  concurrency: number,
): Promise<TFloorPass> {
  const finish = await startPass(bench);
  let changedSeen = 0;
  let failed = 0;
  const { latencies, wallMs } = await runPool(targets, concurrency, async (t) => {
    const result = await floorRefresh(bench.db, t, config, lastHash);
    if (!result) failed++;
    else if (result.changed) changedSeen++;
  });
  return { ...(await finish(wallMs, latencies)), changedSeen, failed };
}

/** Moves a price by 1–12% up or down: about half the moves cross the 5% materiality rule. */
function movePrice(page: TBenchPage, rand: () => number): void {
  const move = (0.01 + rand() * 0.11) * (rand() < 0.5 ? -1 : 1);
  const next = Math.max(1, Math.round(page.price * (1 + move) * 100) / 100);
  page.price = next === page.price ? next + 0.5 : next;
}

/** Moves the price of `count` distinct random pages. */
function changePrices(pages: TBenchPage[], count: number, rand: () => number): Set<number> {
  const changed = new Set<number>();
  while (changed.size < Math.min(count, pages.length)) changed.add(Math.floor(rand() * pages.length));
  for (const i of changed) movePrice(pages[i] as TBenchPage, rand);
  return changed;
}

const rate = (count: number, wallMs: number) => count / (wallMs / 1000);

function countOutcomes(results: readonly TRefreshResult[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of results) {
    const key = r.status === "completed" ? (r.outcome ?? "?") : r.status;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

const describeCounts = (counts: Map<string, number>) =>
  [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");

type TStepName = "lease" | "crawl" | "fill" | "diff" | "judge" | "append";
const STEPS: readonly string[] = ["lease", "crawl", "fill", "diff", "judge", "append"];

type THotSample = { runId: string; ms: number; statements: number; control: number; statementMs: number };
type TFloorSample = {
  ms: number;
  statements: number;
  control: number;
  statementMs: number;
  crawl: number;
  hash: number;
  update: number;
};

type TProfile = {
  unchanged: THotSample[];
  changed: THotSample[];
  floor: TFloorSample[];
  kinds: { unchanged: TStatementKind[]; changed: TStatementKind[] };
  /** Summed over the pass (divide by its samples). */
  resources: { unchanged: TResources; changed: TResources; floor: TResources };
};

/**
 * Where the time goes, measured one refresh at a time (concurrency 1) so that a step's time is its own
 * and not time spent waiting for other refreshes' work on the single JS thread and database connection.
 */
async function profileSerial(
  bench: TBenchDb,
  targets: TTarget[],
  pages: TBenchPage[],
  site: TFixtureSite,
  options: TRefreshOptions,
  config: TCapabilityConfig,
  floorHashes: Map<string, string>,
  rand: () => number,
): Promise<TProfile> {
  const { db, sql } = bench;
  const floor: TFloorSample[] = [];
  let floorResources = NO_RESOURCES;
  const hot = async (key: string) => {
    const samples: THotSample[] = [];
    const mark = await markResources(bench);
    for (const t of targets) {
      const ms0 = sql.statementMs;
      const t0 = performance.now();
      const {
        value: result,
        statements,
        control,
      } = await sql.measure(() => refreshTracker(db, t.trackerId, { ...options, idempotencyKey: key }));
      samples.push({
        runId: result.runId,
        ms: performance.now() - t0,
        statements,
        control,
        statementMs: sql.statementMs - ms0,
      });
    }
    return { samples, resources: await resourcesSince(bench, mark) };
  };
  const floorOnce = async () => {
    const mark = await markResources(bench);
    for (const t of targets) {
      const s0 = sql.statements;
      const c0 = sql.control;
      const ms0 = sql.statementMs;
      const t0 = performance.now();
      const parts = await floorRefresh(db, t, config, floorHashes);
      floor.push({
        ms: performance.now() - t0,
        statements: sql.statements - s0,
        control: sql.control - c0,
        statementMs: sql.statementMs - ms0,
        ...(parts ?? { crawl: Number.NaN, hash: Number.NaN, update: Number.NaN }),
      });
    }
    floorResources = addResources(floorResources, await resourcesSince(bench, mark));
  };
  for (const t of targets) site.setPage(t.page.path, { body: renderBenchPage(t.page) });
  sql.resetKinds();
  const unchanged = await hot("profile-unchanged");
  const unchangedKinds = sql.kinds();
  await floorOnce();
  // Every profiled page changes price now, so each hot refresh takes the fill path.
  const indexes = new Set(targets.map((t) => pages.indexOf(t.page)));
  for (const i of indexes) movePrice(pages[i] as TBenchPage, rand);
  for (const t of targets) site.setPage(t.page.path, { body: renderBenchPage(t.page) });
  await floorOnce();
  sql.resetKinds();
  const changed = await hot("profile-changed");
  return {
    unchanged: unchanged.samples,
    changed: changed.samples,
    floor,
    kinds: { unchanged: unchangedKinds, changed: sql.kinds() },
    resources: { unchanged: unchanged.resources, changed: changed.resources, floor: floorResources },
  };
}

type TBreakdown = Record<TStepName | "other" | "total" | "statements" | "control" | "statementMs", number>;

/** Mean ms per refresh by recorded step (from the run rows); "other" = measured time minus the recorded steps. */
async function hotBreakdown(db: TDb, samples: readonly THotSample[]): Promise<TBreakdown> {
  const out: TBreakdown = {
    lease: 0,
    crawl: 0,
    fill: 0,
    diff: 0,
    judge: 0,
    append: 0,
    other: 0,
    total: 0,
    statements: 0,
    control: 0,
    statementMs: 0,
  };
  const rows = await db.refreshRun.findMany({
    where: { id: { in: samples.map((s) => s.runId) } },
    select: { id: true, steps: true },
  });
  const steps = new Map(rows.map((r) => [r.id, r.steps as { step: string; ms: number }[]]));
  for (const sample of samples) {
    let recorded = 0;
    for (const s of steps.get(sample.runId) ?? []) {
      if (!STEPS.includes(s.step)) continue;
      out[s.step as TStepName] += s.ms;
      recorded += s.ms;
    }
    out.other += Math.max(0, sample.ms - recorded);
    out.total += sample.ms;
    out.statements += sample.statements;
    out.control += sample.control;
    out.statementMs += sample.statementMs;
  }
  for (const k of Object.keys(out) as (keyof TBreakdown)[]) out[k] /= Math.max(1, samples.length);
  return out;
}

/** Per refresh: resources divided by the number of refreshes. */
function perRefreshResources(r: TResources, refreshes: number): TResources {
  const n = Math.max(1, refreshes);
  return {
    cpuMs: r.cpuMs / n,
    serverCpuMs: r.serverCpuMs / n,
    relationBytes: r.relationBytes / n,
    walBytes: r.walBytes / n,
  };
}

/** "12.0 + 2.0" = statements + BEGIN/COMMIT. */
const statementsCell = (statements: number, control: number) => `${fmt(statements)} + ${fmt(control)}`;
const kb = (bytes: number) => (Number.isFinite(bytes) ? `${fmt(bytes / 1024, 1)} KB` : "–");
const bytesCell = (bytes: number) => (Number.isFinite(bytes) ? `${fmt(bytes, 0)} B` : "–");

function serverCpuCell(kind: TBenchDbKind, ms: number): string {
  if (kind === "pglite") return "(in process)";
  return Number.isFinite(ms) ? fmt(ms, 2) : "n/a (not local)";
}

/** What the comparison across databases and the RESULT line need from one database's run. */
type TDbSummary = {
  kind: TBenchDbKind;
  path: THotPath;
  label: string;
  hotRate: number;
  floorRate: number;
  ratio: number;
  ratioRange: string;
  unchanged: TStatementScope;
  changed: TStatementScope;
  /** Where `unchanged`/`changed` come from. */
  scopeSource: string;
  floor: TStatementScope;
  hot: TResources;
  floorResources: TResources;
  modelCallsUnchanged: number;
  modelCallsChanged: number;
  failed: boolean;
};

/**
 * The floor's CPU per refresh over the hot loop's (this process + PostgreSQL backends where measured): what the
 * throughput ratio tends to when both sides are CPU-bound, and steadier than it on a machine other work shares.
 */
function cpuRatio(hot: TResources, floor: TResources): number {
  const total = (r: TResources) => r.cpuMs + (Number.isFinite(r.serverCpuMs) ? r.serverCpuMs : 0);
  return total(floor) / total(hot);
}

function meanScope(scopes: readonly TStatementScope[]): TStatementScope {
  return { statements: mean(scopes.map((s) => s.statements)), control: mean(scopes.map((s) => s.control)) };
}

async function runOn(
  kind: TBenchDbKind,
  path: THotPath,
  o: TRunOptions,
  out: (line: string) => void,
): Promise<TDbSummary> {
  const claim: TClaimClock | null = path === "claim" ? { now: new Date() } : null;
  const rand = seededRandom(o.seed);
  const pages = Array.from({ length: o.trackers }, (_, i) => makeBenchPage(i, o.seed, { min: o.minKb, max: o.maxKb }));
  const perRound = Math.round(o.trackers * o.changeRate);

  const setupStarted = performance.now();
  let bench: TBenchDb | undefined;
  let site: TFixtureSite | undefined;
  let models: TModelServerProcess | undefined;
  try {
    [bench, site, models] = await Promise.all([
      openBenchDb(kind, o.statements),
      startFixtureSite(),
      startModelServerProcess(fillRecordings(o.modelLatencyMs)),
    ]);
    const { db } = bench;
    out(`  database: ${bench.label}`);
    const openedMs = performance.now() - setupStarted;
    for (const page of pages) site.setPage(page.path, { body: renderBenchPage(page) });
    const targets = await setup(db, site, pages);
    const createdMs = performance.now() - setupStarted - openedMs;
    const config = localCapabilityConfig([site.url]);
    const warnings: string[] = [];
    const model = fixtureModel(models.url);
    const baseOptions: TRefreshOptions = {
      trigger: "cron",
      models: { filler: model, judge: model },
      capabilityConfig: config,
      maxModelRetries: 0,
      log: quietLogger(warnings),
    };
    const floorHashes = new Map<string, string>();

    // Baselines (one fill each) for the hot loop, first hashes for the floor; not measured.
    const baseline = await hotPass(
      bench,
      targets,
      { ...baseOptions, idempotencyKey: "baseline" },
      o.concurrency,
      models,
      claim,
    );
    const baselineFloor = await floorPass(bench, targets, config, floorHashes, o.concurrency);
    out(
      `  setup ${fmt((performance.now() - setupStarted) / 1000)} s (database ${fmt(openedMs / 1000)} s, ` +
        `${o.trackers} trackers + floor rows ${fmt(createdMs / 1000)} s, baseline pass ${fmt(baseline.wallMs / 1000)} s: ` +
        `${describeCounts(countOutcomes(baseline.results))}${baselineFloor.failed ? `; floor failures ${baselineFloor.failed}` : ""})`,
    );

    const rounds: TRound[] = [];
    const lines: string[][] = [["round", "first", "changed", "hot r/s", "floor r/s", "hot/floor", "hot outcomes"]];
    for (let round = 0; round <= o.rounds; round++) {
      const changed = round === 0 ? new Set<number>() : changePrices(pages, perRound, rand);
      // Every page is served again with fresh nonces and build stamps; only the changed ones differ in content.
      for (const page of pages) site.setPage(page.path, { body: renderBenchPage(page) });
      const hotFirst = round % 2 === 1;
      const options = { ...baseOptions, idempotencyKey: `tick-${round}` };
      // The warm-up round only warms the unchanged path's code; a slice of the trackers does that.
      const roundTargets = round === 0 ? targets.slice(0, Math.min(WARM_UP_TRACKERS, targets.length)) : targets;
      let hot: THotPass | undefined;
      let floor: TFloorPass | undefined;
      for (const side of hotFirst ? ["hot", "floor"] : ["floor", "hot"]) {
        await settleBeforePass();
        if (side === "hot") hot = await hotPass(bench, roundTargets, options, o.concurrency, models, claim);
        else floor = await floorPass(bench, roundTargets, config, floorHashes, o.concurrency);
      }
      if (!hot || !floor) throw new Error("unreachable");
      const hotRate = rate(roundTargets.length, hot.wallMs);
      const floorRate = rate(roundTargets.length, floor.wallMs);
      const line = [
        round === 0 ? `warm-up (${roundTargets.length})` : String(round),
        hotFirst ? "hot" : "floor",
        String(changed.size),
        fmt(hotRate),
        fmt(floorRate),
        fmt(hotRate / floorRate, 3),
        describeCounts(countOutcomes(hot.results)),
      ];
      lines.push(line);
      out(
        `  round ${line[0]}: ${line[1]} first, ${line[2]} changed; hot ${line[3]} r/s, floor ${line[4]} r/s, ratio ${line[5]}`,
      );
      if (round > 0) rounds.push({ round, order: hotFirst ? "hot" : "floor", changed, hot, floor });
    }

    // ---- Storage of unchanged checks (docs/refresh.md "Unchanged checks are counted, not stored") ----
    // Two more passes over every page, nothing changed, as the scheduler runs them (trigger cron, no idempotency
    // key), 15 minutes apart on a day no check has counted on yet: the first adds each tracker's row for the day,
    // the second only adds to it. Table + index growth per 1,000 refreshes, and at a 15-minute schedule (96 a day).
    const storageDay = new Date(Math.max(Date.now(), claim?.now.getTime() ?? 0) + DAY_MS);
    storageDay.setUTCHours(8, 0, 0, 0);
    const opened = { bench, site, models };
    const storagePass = async (at: Date) => {
      for (const page of pages) opened.site.setPage(page.path, { body: renderBenchPage(page) });
      await settleBeforePass();
      return hotPass(opened.bench, targets, { ...baseOptions, now: () => at }, o.concurrency, opened.models, null);
    };
    const firstOfDay = await storagePass(storageDay);
    const laterThatDay = await storagePass(new Date(storageDay.getTime() + 15 * 60_000));
    if (claim) claim.now = new Date(storageDay.getTime() + DAY_MS);
    const storageBroken = [...firstOfDay.results, ...laterThatDay.results].some((r) => r.outcome !== "unchanged");
    const perThousand = (pass: THotPass) => (pass.resources.relationBytes / targets.length) * 1000;
    const storage = {
      first: perThousand(firstOfDay),
      later: perThousand(laterThatDay),
      schedule: (perThousand(firstOfDay) + 95 * perThousand(laterThatDay)) / 96,
    };

    // ---- Report -------------------------------------------------------------------------------
    const hotRates = rounds.map((r) => rate(o.trackers, r.hot.wallMs));
    const floorRates = rounds.map((r) => rate(o.trackers, r.floor.wallMs));
    const ratios = hotRates.map((hot, i) => hot / (floorRates[i] as number));
    const refreshes = rounds.length * o.trackers;
    const hotResults = rounds.flatMap((r) => r.hot.results);
    const hotLatencies = rounds.flatMap((r) => r.hot.latencies);
    const floorLatencies = rounds.flatMap((r) => r.floor.latencies);
    const callsChanged: number[] = [];
    const callsUnchanged: number[] = [];
    const scopesChanged: TStatementScope[] = [];
    const scopesUnchanged: TStatementScope[] = [];
    for (const r of rounds) {
      r.hot.results.forEach((result, i) => {
        (r.changed.has(i) ? callsChanged : callsUnchanged).push(result.modelCalls);
        (r.changed.has(i) ? scopesChanged : scopesUnchanged).push(r.hot.scopes[i] as TStatementScope);
      });
    }
    const concurrentUnchanged = meanScope(scopesUnchanged);
    const concurrentChanged = meanScope(scopesChanged);
    // Exact per-page counts come from the serial profile below; these are overwritten there when it runs.
    let unchangedScope = concurrentUnchanged;
    let changedScope = concurrentChanged;
    let scopeSource =
      path === "claim"
        ? "claim loop, pass mean (the claim is shared by its batch)"
        : "concurrent rounds, attributed by async context";
    const floorScope = {
      statements: sum(rounds.map((r) => r.floor.sql)) / refreshes,
      control: sum(rounds.map((r) => r.floor.control)) / refreshes,
    };
    const hotRes = perRefreshResources(
      rounds.map((r) => r.hot.resources).reduce(addResources, NO_RESOURCES),
      refreshes,
    );
    const floorRes = perRefreshResources(
      rounds.map((r) => r.floor.resources).reduce(addResources, NO_RESOURCES),
      refreshes,
    );
    const modelCalls = sum(hotResults.map((r) => r.modelCalls));
    const serverModelRequests = sum(rounds.map((r) => r.hot.modelRequests));
    const failed = hotResults.filter((r) => r.status !== "completed").length;
    const floorFailed = sum(rounds.map((r) => r.floor.failed));
    const floorChangedSeen = sum(rounds.map((r) => r.floor.changedSeen));
    const hotChangedSeen = hotResults.filter((r) => r.status === "completed" && r.outcome !== "unchanged").length;
    const perRefresh = (pick: (r: TRound) => number, decimals = 1) => fmt(sum(rounds.map(pick)) / refreshes, decimals);

    out("");
    out(table(lines));
    out("");
    out(
      table([
        [`per side, measured rounds (${kind})`, "hot loop", "floor", "hot/floor"],
        ["refreshes/s (median of rounds)", fmt(median(hotRates)), fmt(median(floorRates)), fmt(median(ratios), 3)],
        [
          "refreshes/s (min–max)",
          `${fmt(min(hotRates))}–${fmt(max(hotRates))}`,
          `${fmt(min(floorRates))}–${fmt(max(floorRates))}`,
          `${fmt(min(ratios), 3)}–${fmt(max(ratios), 3)}`,
        ],
        ["latency p50 ms", fmt(percentile(hotLatencies, 50)), fmt(percentile(floorLatencies, 50)), ""],
        ["latency p95 ms", fmt(percentile(hotLatencies, 95)), fmt(percentile(floorLatencies, 95)), ""],
        ["model calls / refresh", fmt(modelCalls / refreshes, 3), "0", ""],
        ["  on changed pages", fmt(mean(callsChanged), 2), "0", ""],
        ["  on unchanged pages", fmt(mean(callsUnchanged), 2), "0", ""],
        [
          "SQL statements / refresh (+ BEGIN/COMMIT)",
          statementsCell(
            sum(rounds.map((r) => r.hot.sql)) / refreshes,
            sum(rounds.map((r) => r.hot.control)) / refreshes,
          ),
          statementsCell(floorScope.statements, floorScope.control),
          "",
        ],
        [
          "  unchanged page, by async context",
          statementsCell(concurrentUnchanged.statements, concurrentUnchanged.control),
          "",
          "",
        ],
        [
          "  changed page, by async context",
          statementsCell(concurrentChanged.statements, concurrentChanged.control),
          "",
          "",
        ],
        [
          "transactions / refresh",
          perRefresh((r) => r.hot.transactions, 2),
          perRefresh((r) => r.floor.transactions, 2),
          "",
        ],
        [
          "main thread busy ms / refresh",
          perRefresh((r) => r.hot.mainMs, 2),
          perRefresh((r) => r.floor.mainMs, 2),
          fmt(sum(rounds.map((r) => r.floor.mainMs)) / sum(rounds.map((r) => r.hot.mainMs)), 3),
        ],
        [
          "CPU ms / refresh, this process",
          fmt(hotRes.cpuMs, 2),
          fmt(floorRes.cpuMs, 2),
          fmt(cpuRatio(hotRes, floorRes), 3),
        ],
        [
          "CPU ms / refresh, PostgreSQL backends",
          serverCpuCell(kind, hotRes.serverCpuMs),
          serverCpuCell(kind, floorRes.serverCpuMs),
          "",
        ],
        ["CPU ms / refresh, fixture model server (own process)", perRefresh((r) => r.hot.modelServerCpuMs, 2), "0", ""],
        [
          "bytes / refresh, table + index growth",
          bytesCell(hotRes.relationBytes),
          bytesCell(floorRes.relationBytes),
          "",
        ],
        [
          `bytes / refresh, WAL (${kind === "pglite" ? "this instance" : "whole cluster"})`,
          bytesCell(hotRes.walBytes),
          bytesCell(floorRes.walBytes),
          "",
        ],
        ["content changes seen", String(hotChangedSeen), String(floorChangedSeen), ""],
        ["failed refreshes", String(failed), String(floorFailed), ""],
      ]),
    );
    out(
      `  hot-loop outcomes: ${describeCounts(countOutcomes(hotResults))}; model requests the fixture server saw: ${serverModelRequests}`,
    );
    out(
      `  statements are counted at the driver (${kind === "pglite" ? "PGlite query/exec; its transaction() adds BEGIN + COMMIT" : "every query of the pg pool's clients, BEGIN/COMMIT included"}); ` +
        "per page they are attributed by async context, which is approximate under concurrency (Prisma batches findUnique " +
        "calls made in the same tick into one statement, credited to one of the refreshes): exact per-page counts are in the serial profile. " +
        "CPU, growth and WAL are measured around each pass, the probes outside it.",
    );

    // ---- Where the time goes (serial) -----------------------------------------------------------
    // The serial profile explains one refreshTracker() at a time: the refresh path's (the claim path's refreshes are
    // the same function, minus the lease read).
    const profiled = path === "claim" ? [] : targets.slice(0, Math.min(o.profile, targets.length));
    if (profiled.length > 0) {
      const p = await profileSerial(bench, profiled, pages, site, baseOptions, config, floorHashes, rand);
      const u = await hotBreakdown(db, p.unchanged);
      const c = await hotBreakdown(db, p.changed);
      const f = {
        total: mean(p.floor.map((x) => x.ms)),
        crawl: mean(p.floor.map((x) => x.crawl)),
        hash: mean(p.floor.map((x) => x.hash)),
        update: mean(p.floor.map((x) => x.update)),
        statements: mean(p.floor.map((x) => x.statements)),
        control: mean(p.floor.map((x) => x.control)),
        statementMs: mean(p.floor.map((x) => x.statementMs)),
      };
      unchangedScope = { statements: u.statements, control: u.control };
      changedScope = { statements: c.statements, control: c.control };
      scopeSource = `serial profile, ${profiled.length} refreshes each`;
      const ru = perRefreshResources(p.resources.unchanged, p.unchanged.length);
      const rc = perRefreshResources(p.resources.changed, p.changed.length);
      const rf = perRefreshResources(p.resources.floor, p.floor.length);
      const cell = (part: number, total: number) =>
        Number.isFinite(part) && total > 0 ? `${fmt(part, 2)}  ${fmt((100 * part) / total, 0).padStart(3)}%` : "";
      out("");
      out(
        `  where the time goes: mean ms per refresh, one at a time (concurrency 1), ${profiled.length} trackers; hot-loop steps from its run records`,
      );
      out(
        table([
          ["step", "hot, unchanged", "hot, changed", "floor"],
          ["lease (conditional UPDATE)", cell(u.lease, u.total), cell(c.lease, c.total), ""],
          [
            "crawl: fetch + format (hot: + CSS extractors)",
            cell(u.crawl, u.total),
            cell(c.crawl, c.total),
            cell(f.crawl, f.total),
          ],
          ["hash", "(in other)", "(in other)", cell(f.hash, f.total)],
          ["fill: extractor + 1 model call", cell(u.fill, u.total), cell(c.fill, c.total), ""],
          ["diff + judge (rules)", cell(u.diff + u.judge, u.total), cell(c.diff + c.judge, c.total), ""],
          [
            "append (rides in the final write) / the UPDATE",
            cell(u.append, u.total),
            cell(c.append, c.total),
            cell(f.update, f.total),
          ],
          ["other: the final write, run record, pre-check", cell(u.other, u.total), cell(c.other, c.total), ""],
          ["total", fmt(u.total, 2), fmt(c.total, 2), fmt(f.total, 2)],
          [
            "SQL statements (+ BEGIN/COMMIT)",
            statementsCell(u.statements, u.control),
            statementsCell(c.statements, c.control),
            statementsCell(f.statements, f.control),
          ],
          [
            `  time inside ${kind === "pglite" ? "PGlite" : "PostgreSQL (round trips)"}`,
            cell(u.statementMs, u.total),
            cell(c.statementMs, c.total),
            cell(f.statementMs, f.total),
          ],
          ["CPU ms, this process", fmt(ru.cpuMs, 2), fmt(rc.cpuMs, 2), fmt(rf.cpuMs, 2)],
          [
            "CPU ms, PostgreSQL backends",
            serverCpuCell(kind, ru.serverCpuMs),
            serverCpuCell(kind, rc.serverCpuMs),
            serverCpuCell(kind, rf.serverCpuMs),
          ],
          [
            "bytes, table + index growth",
            bytesCell(ru.relationBytes),
            bytesCell(rc.relationBytes),
            bytesCell(rf.relationBytes),
          ],
          ["bytes, WAL", bytesCell(ru.walBytes), bytesCell(rc.walBytes), bytesCell(rf.walBytes)],
        ]),
      );
      const perRun = (list: TStatementKind[], n: number) =>
        new Map(list.map((x) => [x.kind, { count: x.count / n, ms: x.ms / n }]));
      const ku = perRun(p.kinds.unchanged, p.unchanged.length);
      const kc = perRun(p.kinds.changed, p.changed.length);
      const kindNames = [...new Set([...ku.keys(), ...kc.keys()])].sort(
        (a, b) => (kc.get(b)?.ms ?? 0) + (ku.get(b)?.ms ?? 0) - (kc.get(a)?.ms ?? 0) - (ku.get(a)?.ms ?? 0),
      );
      const kindCell = (x: { count: number; ms: number } | undefined) =>
        x ? `${fmt(x.count, 1)} × = ${fmt(x.ms, 2)} ms` : "";
      out("");
      out(
        `  the hot loop's SQL, per refresh (statements as the Prisma adapter sends them to ${kind === "pglite" ? "PGlite" : "PostgreSQL"}; BEGIN/COMMIT counted above, not here)`,
      );
      out(
        table([
          ["statement", "unchanged page", "changed page"],
          ...kindNames.map((k) => [k, kindCell(ku.get(k)), kindCell(kc.get(k))]),
        ]),
      );
    }

    out("");
    out(
      `  RESULT refresh (${kind}, ${path} path): hot loop ${fmt(median(hotRates))} r/s vs floor ${fmt(median(floorRates))} r/s → ratio ${fmt(median(ratios), 3)} ` +
        `(median of ${rounds.length} paired rounds); statements per unchanged refresh ${statementsCell(unchangedScope.statements, unchangedScope.control)}, ` +
        `per changed ${statementsCell(changedScope.statements, changedScope.control)} (+ BEGIN/COMMIT; ${scopeSource}); ` +
        `CPU ${fmt(hotRes.cpuMs, 2)} ms/refresh${kind === "postgres" ? ` + ${serverCpuCell(kind, hotRes.serverCpuMs)} ms in backends` : ""}; ` +
        `${bytesCell(hotRes.relationBytes)} stored and ${bytesCell(hotRes.walBytes)} WAL per refresh; ` +
        `${fmt(mean(callsUnchanged), 2)} model calls per unchanged refresh`,
    );
    out(
      `  RESULT storage (${kind}): per 1,000 unchanged scheduled refreshes, table + index growth ${kb(storage.later)} ` +
        `(later checks of a day), ${kb(storage.first)} (a tracker's first check of a day, which adds its day row) → ` +
        `${kb(storage.schedule)} at a 15-minute schedule (goal ≤ 100 KB)` +
        (storageBroken ? "; ! a storage pass found a change: not comparable" : ""),
    );
    if (warnings.length) out(`  ${warnings.length} refresh warning(s), first: ${warnings[0]}`);
    const broken =
      storageBroken || failed > 0 || floorFailed > 0 || baseline.results.some((r) => r.outcome !== "baseline");
    if (broken) {
      out("  ! some refreshes failed or the baseline did not complete: the numbers above are not comparable");
      process.exitCode = 1;
    }
    return {
      kind,
      path,
      label: bench.label,
      hotRate: median(hotRates),
      floorRate: median(floorRates),
      ratio: median(ratios),
      ratioRange: `${fmt(min(ratios), 3)}–${fmt(max(ratios), 3)}`,
      unchanged: unchangedScope,
      changed: changedScope,
      scopeSource,
      floor: floorScope,
      hot: hotRes,
      floorResources: floorRes,
      modelCallsUnchanged: mean(callsUnchanged),
      modelCallsChanged: mean(callsChanged),
      failed: broken,
    };
  } finally {
    await Promise.allSettled([site?.close(), models?.close()]);
    await bench?.close();
  }
}

/** The databases and hot paths side by side (`--db both`, `--hot-path both`). */
function compareDatabases(summaries: TDbSummary[], out: (line: string) => void): void {
  const col = (pick: (s: TDbSummary) => string) => summaries.map(pick);
  out("");
  out("  side by side (same pages, same options; each run's hot/floor ratio is paired within its own rounds)");
  out(
    table([
      ["hot loop, per refresh", ...col((s) => `${s.kind}, ${s.path}`)],
      ["hot/floor (median of rounds)", ...col((s) => fmt(s.ratio, 3))],
      ["hot/floor (min–max)", ...col((s) => s.ratioRange)],
      ["hot/floor by CPU (floor CPU / hot CPU)", ...col((s) => fmt(cpuRatio(s.hot, s.floorResources), 3))],
      ["hot loop refreshes/s", ...col((s) => fmt(s.hotRate))],
      ["floor refreshes/s", ...col((s) => fmt(s.floorRate))],
      [
        "statements, unchanged page (+ BEGIN/COMMIT)",
        ...col((s) => statementsCell(s.unchanged.statements, s.unchanged.control)),
      ],
      [
        "statements, changed page (+ BEGIN/COMMIT)",
        ...col((s) => statementsCell(s.changed.statements, s.changed.control)),
      ],
      ["CPU ms, this process", ...col((s) => fmt(s.hot.cpuMs, 2))],
      ["CPU ms, PostgreSQL backends", ...col((s) => serverCpuCell(s.kind, s.hot.serverCpuMs))],
      ["bytes, table + index growth", ...col((s) => bytesCell(s.hot.relationBytes))],
      ["bytes, WAL", ...col((s) => bytesCell(s.hot.walBytes))],
      ["model calls, unchanged page", ...col((s) => fmt(s.modelCallsUnchanged, 2))],
      ["model calls, changed page", ...col((s) => fmt(s.modelCallsChanged, 2))],
    ]),
  );
  out(`  statements per page from: ${summaries.map((s) => `${s.kind}, ${s.path}: ${s.scopeSource}`).join("; ")}`);
}

export async function runRefreshBench(args: TBenchArgs, out: (line: string) => void): Promise<void> {
  const o = readOptions(args);
  const kinds = dbKinds(o.db);
  const paths: THotPath[] = o.hotPath === "both" ? ["refresh", "claim"] : [o.hotPath];
  const pages = Array.from({ length: o.trackers }, (_, i) => makeBenchPage(i, o.seed, { min: o.minKb, max: o.maxKb }));
  const avgKb = mean(pages.map((p) => renderBenchPage(p).length)) / 1024;
  const perRound = Math.round(o.trackers * o.changeRate);

  out(
    `refresh: ${o.trackers} web.scrape trackers, ${o.rounds} measured rounds (+1 warm-up), ${perRound} page(s) change price per round, ` +
      `concurrency ${o.concurrency} per side, pages ${o.minKb}–${o.maxKb} KB (mean ${fmt(avgKb)} KB), ` +
      `model latency ${o.modelLatencyMs} ms, seed ${o.seed}, database ${kinds.join(" then ")}, hot path ${paths.join(" then ")}, ` +
      `hot statements ${o.statements}`,
  );
  out(
    "  hot loop = refresh path: refreshTracker(): one read (lease + bundle + idempotency answer) + web.scrape (fetch + format,",
  );
  out(
    "             content hash in the page worker) + hash pre-check + [changed only: fill (extractor + 1 model call) + diff +",
  );
  out("             judge by rules] + one fenced final write (run, ledger, timeline)");
  out(
    "             claim path: runDueRefreshes() (cron route, worker): one statement claims a batch with every bundle, then the same",
  );
  out("             refresh per tracker without its own read; unchanged runs' final writes go several to a statement");
  out(
    "  floor    = the same web.scrape call + the same hash + one UPDATE of an entity-state row (no run, lease, ledger, fill, judge)",
  );
  out("  Both run over the same pages in every round, alternating which goes first; ratios are paired per round.");

  const combinations = kinds.flatMap((kind) => paths.map((path) => ({ kind, path })));
  const summaries: TDbSummary[] = [];
  for (const { kind, path } of combinations) {
    out("");
    out(`  ---- ${kind}, ${path} path ----`);
    if (combinations.length === 1) {
      const summary = await runOn(kind, path, o, out);
      // A run started by the loop below answers with its summary on one machine-readable line.
      if (args.env[CHILD_ENV] === "1") out(`${SUMMARY_PREFIX}${JSON.stringify(summary)}`);
      summaries.push(summary);
    } else {
      summaries.push(await runInOwnProcess(args, kind, path, out));
    }
  }
  if (summaries.length > 1) compareDatabases(summaries, out);
}

const CHILD_ENV = "BENCH_REFRESH_CHILD";
const SUMMARY_PREFIX = "BENCH_REFRESH_SUMMARY ";
const BENCH_ENTRY = fileURLToPath(new URL("./index.ts", import.meta.url));

/**
 * One database and hot path in a process of its own: every combination starts from the same fresh heap, JIT and
 * worker pool, instead of inheriting what the runs before it left (a closed PGlite's memory, a grown old generation).
 * The child gets the same flags, narrowed to this combination, prints its sections as usual (passed through here)
 * and its summary as one JSON line.
 */
async function runInOwnProcess(
  args: TBenchArgs,
  kind: TBenchDbKind,
  path: THotPath,
  out: (line: string) => void,
): Promise<TDbSummary> {
  // This benchmark's own flags only (`npm run bench` may carry other benchmarks' flags), narrowed to this combination.
  const own = new Set([...Object.values(FLAGS), STATEMENTS_FLAG].map((f) => f.name));
  const flags = [...args.flags].filter(([name]) => own.has(name));
  const argv = [
    "--import",
    "tsx",
    BENCH_ENTRY,
    "refresh",
    ...flags.flatMap(([name, value]) => [`--${name}`, value]),
    `--${DB_FLAG.name}`,
    kind,
    `--${HOT_PATH_FLAG.name}`,
    path,
  ];
  const child = spawn(process.execPath, argv, {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...args.env, [CHILD_ENV]: "1" },
  });
  let summary: TDbSummary | null = null;
  let section = false;
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    if (line.startsWith(SUMMARY_PREFIX)) {
      // NaN (a figure not measured) travels as null.
      summary = JSON.parse(line.slice(SUMMARY_PREFIX.length), (_k, v) => (v === null ? Number.NaN : v)) as TDbSummary;
      section = false;
    } else if (line.startsWith("  ---- ")) section = true;
    else if (section) out(line);
  });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) process.exitCode = code ?? 1;
  if (!summary)
    throw new Error(`The refresh benchmark on ${kind} (${path} path) ended without a summary (exit ${code}).`);
  return summary;
}

export const refreshBenchmark: TBenchmark = {
  name: "refresh",
  description: "refresh hot loop vs a bare fetch+hash+update floor over the same fixture pages",
  flags: [...Object.values(FLAGS), DB_FLAG, STATEMENTS_FLAG, HOT_PATH_FLAG],
  validate: (args) => assertDbAvailable(readOptions(args).db, args),
  run: runRefreshBench,
};

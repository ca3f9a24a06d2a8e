import { executeCapability, hashStructuredDocument, type TCapabilityConfig } from "@/server/capabilities";
import type { TDb } from "@/server/db";
import { refreshTracker, type TRefreshOptions, type TRefreshResult } from "@/server/intelligence/refresh";
import type { TLogger } from "@/server/logger";
import { ensureEntity, writeCurrentState } from "@/server/timeline";
import { createTracker } from "@/server/trackers";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import type { TRecordingInput } from "../fixtures/model-server/recordings";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";
import {
  BenchUsageError,
  fmt,
  numberOption,
  runPool,
  type TBenchArgs,
  type TBenchFlag,
  type TBenchmark,
  table,
} from "./harness";
import { makeBenchPage, RATINGS, renderBenchPage, type TBenchPage } from "./pages";
import { countSql, type TSqlCounter, type TStatementKind } from "./sql-counter";
import { max, mean, median, min, percentile, seededRandom, sum } from "./stats";

/**
 * Refresh benchmark: N web.scrape trackers against the local fixture site, refreshed round after round
 * while ~10% of the pages change price between rounds. Two sides run over the very same pages, one after
 * the other within each round, alternating which goes first:
 *
 *   hot loop  refreshTracker(): run row + idempotency lookup + lease + web.scrape (fetch + format) +
 *             usage-ledger row + hash pre-check + [fill (1 model call) + diff + judge by rules] + the
 *             append transaction (state, change row, run record, tracker bookkeeping).
 *   floor     the same web.scrape call + the same hash + one UPDATE of an entity-state row; no run,
 *             lease, ledger, fill, judge or change rows.
 *
 * The floor is what any refresh must pay at least; hot/floor throughput is the cost of the engine.
 * Both share one process, one PGlite and one fixture site, so machine noise hits both alike; the
 * per-round ratio (paired) is the number to watch, not the absolute rates.
 */

const WARM_UP_TRACKERS = 50;

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

/** The flags this benchmark reads; `--help` and the README table come from here. */
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

function readOptions(args: TBenchArgs): TOptions {
  const o = Object.fromEntries(Object.entries(FLAGS).map(([key, flag]) => [key, numberOption(args, flag)])) as TOptions;
  if (o.maxKb < o.minKb) {
    throw new BenchUsageError(`--max-kb (${o.maxKb}) must not be smaller than --min-kb (${o.minKb}).`);
  }
  return o;
}

/** One extractor field (code) + one model-filled field, with numeric materiality rules for both. */
const DEFINITION = {
  fields: [
    {
      name: "price",
      type: "money",
      currency: "USD",
      description: "Pro plan monthly price",
      extractor: { kind: "css", selector: "#price" },
    },
    { name: "rating", type: "number", description: "Average customer rating out of 5" },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 }, rating: { kind: "numeric", absolute: 0.2 } },
};

/** The fixture model reads the rating off the page (by matching it in the prompt), like a real filler would. */
function fillRecordings(latencyMs: number): TRecordingInput[] {
  return RATINGS.map((rating) => ({
    name: `fill rating ${rating.toFixed(1)}`,
    match: { schemaName: "tracker_record", userRegex: `Rated ${rating.toFixed(1).replace(".", "\\.")} out of 5` },
    response: {
      json: { rating, notable_signals: [] },
      usage: { promptTokens: 9000, completionTokens: 20 },
      ...(latencyMs > 0 ? { latencyMs } : {}),
    },
  }));
}

/** Keeps refresh warnings out of the report; the benchmark counts them instead. */
function quietLogger(sink: string[]): TLogger {
  const log: TLogger = {
    debug: () => {},
    info: () => {},
    warn: (msg, fields) => void sink.push(`${msg} ${JSON.stringify(fields ?? {})}`),
    error: (msg, fields) => void sink.push(`${msg} ${JSON.stringify(fields ?? {})}`),
    child: () => log,
  };
  return log;
}

type TTarget = { page: TBenchPage; url: string; trackerId: string; floorEntityId: string; floorSalt: string };

type THotPass = {
  wallMs: number;
  latencies: number[];
  results: TRefreshResult[];
  sql: number;
  transactions: number;
  modelRequests: number;
};

type TFloorPass = {
  wallMs: number;
  latencies: number[];
  changedSeen: number;
  failed: number;
  sql: number;
  transactions: number;
};

type TRound = { round: number; order: string; changed: Set<number>; hot: THotPass; floor: TFloorPass };

async function setup(db: TDb, site: TFixtureSite, pages: TBenchPage[]): Promise<TTarget[]> {
  const { id: userId } = await ensureLocalUser(db);
  const checkedAt = new Date();
  // Sequential: PGlite is one connection anyway, and setup is not measured.
  const targets: TTarget[] = [];
  for (const page of pages) {
    const url = site.urlFor(page.path);
    const { tracker } = await createActiveTracker(db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url },
      definition: DEFINITION,
      decision: "Is this competitor undercutting our Pro plan?",
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

async function hotPass(
  db: TDb,
  targets: TTarget[],
  options: TRefreshOptions,
  concurrency: number,
  sql: TSqlCounter,
  models: TModelServer,
): Promise<THotPass> {
  const sql0 = sql.statements;
  const tx0 = sql.transactions;
  const model0 = models.requests.at(-1)?.seq ?? 0;
  const { latencies, results, wallMs } = await runPool(targets, concurrency, (t) =>
    refreshTracker(db, t.trackerId, options),
  );
  return {
    wallMs,
    latencies,
    results,
    sql: sql.statements - sql0,
    transactions: sql.transactions - tx0,
    modelRequests: (models.requests.at(-1)?.seq ?? 0) - model0,
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
  const envelope = await executeCapability("web.scrape", { url: t.url }, { config });
  const t1 = performance.now();
  const document = (envelope.results as { document?: unknown } | undefined)?.document;
  if (envelope.status !== "completed" || document === undefined) return null;
  const contentHash = hashStructuredDocument(document, t.floorSalt);
  const t2 = performance.now();
  await db.entityCurrentState.updateMany({
    where: { entityId: t.floorEntityId },
    data: { contentHash, lastCheckedAt: new Date() },
  });
  const t3 = performance.now();
  const changed = lastHash.get(t.floorEntityId) !== contentHash;
  lastHash.set(t.floorEntityId, contentHash);
  return { crawl: t1 - t0, hash: t2 - t1, update: t3 - t2, changed };
}

async function floorPass(
  db: TDb,
  targets: TTarget[],
  config: TCapabilityConfig,
  lastHash: Map<string, string>,
  concurrency: number,
  sql: TSqlCounter,
): Promise<TFloorPass> {
  const sql0 = sql.statements;
  const tx0 = sql.transactions;
  let changedSeen = 0;
  let failed = 0;
  const { latencies, wallMs } = await runPool(targets, concurrency, async (t) => {
    const result = await floorRefresh(db, t, config, lastHash);
    if (!result) failed++;
    else if (result.changed) changedSeen++;
  });
  return { wallMs, latencies, changedSeen, failed, sql: sql.statements - sql0, transactions: sql.transactions - tx0 };
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

type THotSample = { runId: string; ms: number; statements: number; statementMs: number };
type TFloorSample = {
  ms: number;
  statements: number;
  statementMs: number;
  crawl: number;
  hash: number;
  update: number;
};

/**
 * Where the time goes, measured one refresh at a time (concurrency 1) so that a step's time is its own
 * and not time spent waiting for other refreshes' work on the single JS thread and PGlite connection.
 */
async function profileSerial(
  db: TDb,
  targets: TTarget[],
  pages: TBenchPage[],
  site: TFixtureSite,
  options: TRefreshOptions,
  config: TCapabilityConfig,
  sql: TSqlCounter,
  floorHashes: Map<string, string>,
  rand: () => number,
): Promise<{
  unchanged: THotSample[];
  changed: THotSample[];
  floor: TFloorSample[];
  kinds: { unchanged: TStatementKind[]; changed: TStatementKind[] };
}> {
  const floor: TFloorSample[] = [];
  const hot = async (key: string) => {
    const samples: THotSample[] = [];
    for (const t of targets) {
      const s0 = sql.statements;
      const ms0 = sql.statementMs;
      const t0 = performance.now();
      const result = await refreshTracker(db, t.trackerId, { ...options, idempotencyKey: key });
      samples.push({
        runId: result.runId,
        ms: performance.now() - t0,
        statements: sql.statements - s0,
        statementMs: sql.statementMs - ms0,
      });
    }
    return samples;
  };
  const floorOnce = async () => {
    for (const t of targets) {
      const s0 = sql.statements;
      const ms0 = sql.statementMs;
      const t0 = performance.now();
      const parts = await floorRefresh(db, t, config, floorHashes);
      floor.push({
        ms: performance.now() - t0,
        statements: sql.statements - s0,
        statementMs: sql.statementMs - ms0,
        ...(parts ?? { crawl: Number.NaN, hash: Number.NaN, update: Number.NaN }),
      });
    }
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
  return { unchanged, changed, floor, kinds: { unchanged: unchangedKinds, changed: sql.kinds() } };
}

type TBreakdown = Record<TStepName | "other" | "total" | "statements" | "statementMs", number>;

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
    out.statementMs += sample.statementMs;
  }
  for (const k of Object.keys(out) as (keyof TBreakdown)[]) out[k] /= Math.max(1, samples.length);
  return out;
}

export async function runRefreshBench(args: TBenchArgs, out: (line: string) => void): Promise<void> {
  const o = readOptions(args);
  const rand = seededRandom(o.seed);
  const pages = Array.from({ length: o.trackers }, (_, i) => makeBenchPage(i, o.seed, { min: o.minKb, max: o.maxKb }));
  const avgKb = mean(pages.map((p) => renderBenchPage(p).length)) / 1024;
  const perRound = Math.round(o.trackers * o.changeRate);

  out(
    `refresh: ${o.trackers} web.scrape trackers, ${o.rounds} measured rounds (+1 warm-up), ${perRound} page(s) change price per round, ` +
      `concurrency ${o.concurrency} per side, pages ${o.minKb}–${o.maxKb} KB (mean ${fmt(avgKb)} KB), ` +
      `model latency ${o.modelLatencyMs} ms, seed ${o.seed}`,
  );
  out(
    "  hot loop = refreshTracker(): run row + idempotency lookup + lease + web.scrape (fetch + format) + usage-ledger row",
  );
  out(
    "             + hash pre-check + [changed only: fill (extractor + 1 model call) + diff + judge by rules] + append transaction",
  );
  out(
    "  floor    = the same web.scrape call + the same hash + one UPDATE of an entity-state row (no run, lease, ledger, fill, judge)",
  );
  out("  Both run over the same pages in every round, alternating which goes first; ratios are paired per round.");

  const setupStarted = performance.now();
  let testDb: TTestDb | undefined;
  let site: TFixtureSite | undefined;
  let models: TModelServer | undefined;
  try {
    [testDb, site, models] = await Promise.all([
      createTestDb(),
      startFixtureSite(),
      startModelServer({ recordings: fillRecordings(o.modelLatencyMs) }),
    ]);
    const db = testDb.db;
    const openedMs = performance.now() - setupStarted;
    for (const page of pages) site.setPage(page.path, { body: renderBenchPage(page) });
    const targets = await setup(db, site, pages);
    const createdMs = performance.now() - setupStarted - openedMs;
    const sql = countSql(testDb.pglite);
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
      db,
      targets,
      { ...baseOptions, idempotencyKey: "baseline" },
      o.concurrency,
      sql,
      models,
    );
    const baselineFloor = await floorPass(db, targets, config, floorHashes, o.concurrency, sql);
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
        if (side === "hot") hot = await hotPass(db, roundTargets, options, o.concurrency, sql, models);
        else floor = await floorPass(db, roundTargets, config, floorHashes, o.concurrency, sql);
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
    for (const r of rounds) {
      r.hot.results.forEach((result, i) => {
        (r.changed.has(i) ? callsChanged : callsUnchanged).push(result.modelCalls);
      });
    }
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
        ["per side, measured rounds", "hot loop", "floor", "hot/floor"],
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
        ["SQL statements / refresh", perRefresh((r) => r.hot.sql), perRefresh((r) => r.floor.sql), ""],
        [
          "transactions / refresh",
          perRefresh((r) => r.hot.transactions, 2),
          perRefresh((r) => r.floor.transactions, 2),
          "",
        ],
        ["content changes seen", String(hotChangedSeen), String(floorChangedSeen), ""],
        ["failed refreshes", String(failed), String(floorFailed), ""],
      ]),
    );
    out(
      `  hot-loop outcomes: ${describeCounts(countOutcomes(hotResults))}; model requests the fixture server saw: ${serverModelRequests}`,
    );

    // ---- Where the time goes (serial) -----------------------------------------------------------
    const profiled = targets.slice(0, Math.min(o.profile, targets.length));
    if (profiled.length > 0) {
      const p = await profileSerial(db, profiled, pages, site, baseOptions, config, sql, floorHashes, rand);
      const u = await hotBreakdown(db, p.unchanged);
      const c = await hotBreakdown(db, p.changed);
      const f = {
        total: mean(p.floor.map((x) => x.ms)),
        crawl: mean(p.floor.map((x) => x.crawl)),
        hash: mean(p.floor.map((x) => x.hash)),
        update: mean(p.floor.map((x) => x.update)),
        statements: mean(p.floor.map((x) => x.statements)),
        statementMs: mean(p.floor.map((x) => x.statementMs)),
      };
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
            "crawl: fetch + format (hot: + ledger INSERT)",
            cell(u.crawl, u.total),
            cell(c.crawl, c.total),
            cell(f.crawl, f.total),
          ],
          ["hash", "(in other)", "(in other)", cell(f.hash, f.total)],
          ["fill: extractor + 1 model call", cell(u.fill, u.total), cell(c.fill, c.total), ""],
          ["diff + judge (rules)", cell(u.diff + u.judge, u.total), cell(c.diff + c.judge, c.total), ""],
          [
            "append transaction / the UPDATE",
            cell(u.append, u.total),
            cell(c.append, c.total),
            cell(f.update, f.total),
          ],
          ["other: run claim + updates, reads, pre-check", cell(u.other, u.total), cell(c.other, c.total), ""],
          ["total", fmt(u.total, 2), fmt(c.total, 2), fmt(f.total, 2)],
          ["SQL statements", fmt(u.statements), fmt(c.statements), fmt(f.statements)],
          [
            "  time inside PGlite",
            cell(u.statementMs, u.total),
            cell(c.statementMs, c.total),
            cell(f.statementMs, f.total),
          ],
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
        "  the hot loop's SQL, per refresh (statements as the Prisma adapter sends them to PGlite; BEGIN/COMMIT not shown)",
      );
      out(
        table([
          ["statement", "unchanged page", "changed page"],
          ...kindNames.map((k) => [k, kindCell(ku.get(k)), kindCell(kc.get(k))]),
        ]),
      );
    }

    sql.restore();
    out("");
    out(
      `  RESULT refresh: hot loop ${fmt(median(hotRates))} r/s vs floor ${fmt(median(floorRates))} r/s → ratio ${fmt(median(ratios), 3)} ` +
        `(median of ${rounds.length} paired rounds); ${fmt(modelCalls / refreshes, 3)} model calls per refresh`,
    );
    if (warnings.length) out(`  ${warnings.length} refresh warning(s), first: ${warnings[0]}`);
    if (failed || floorFailed || baseline.results.some((r) => r.outcome !== "baseline")) {
      out("  ! some refreshes failed or the baseline did not complete: the numbers above are not comparable");
      process.exitCode = 1;
    }
  } finally {
    await Promise.allSettled([site?.close(), models?.close()]);
    await testDb?.close();
  }
}

export const refreshBenchmark: TBenchmark = {
  name: "refresh",
  description: "refresh hot loop vs a bare fetch+hash+update floor over the same fixture pages",
  flags: Object.values(FLAGS),
  validate: (args) => void readOptions(args),
  run: runRefreshBench,
};

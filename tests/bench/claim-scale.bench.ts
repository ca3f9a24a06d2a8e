import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { applyMigrations, createPostgresDb, describePostgresUrl, pgClientRunner, type TDb } from "@/server/db";
import { resetEnvForTests } from "@/server/env";
import { prepareEvent } from "@/server/events";
import type { Prisma } from "@/server/generated/prisma/client";
import { successWrite } from "@/server/intelligence/refresh/finish-run";
import { type TFinalWrite, writeRunFinal, writeRunFinals } from "@/server/intelligence/refresh/run-record";
import { stampWrites } from "@/server/intelligence/refresh/timeline-writes";
import { claimDueTrackers, type TLoadedTracker } from "@/server/intelligence/tracker-store";
import { pruneBatchSql } from "@/server/retention";
import { testDatabaseUrl, urlForDatabase, withAdminClient } from "../helpers/db";
import { BENCH_DATABASE_PREFIX } from "./bench-db";
import { BENCH_DEFINITION } from "./bench-trackers";
import {
  choiceOption,
  fmt,
  numberOption,
  type TBenchChoiceFlag,
  type TBenchFlag,
  type TBenchmark,
  table,
} from "./harness";
import { percentile } from "./stats";

/**
 * The scheduler's claim and a run's final write at 100k and 1M trackers on a real PostgreSQL (docs/scale.md,
 * docs/benchmarks.md). The statements are the app's own — `claimDueTrackers` and
 * `writeRunFinal(s)` with a counted unchanged run, as finish-run.ts composes it (`successWrite`) — over
 * SYNTHETIC rows made with generate_series in a throw-away migrated database: no page is fetched, so these are the
 * database's costs only. EXPLAIN runs the same statement text, captured from those functions, in a rolled-back
 * transaction. Prints, never asserts; exits 1 only when a tracker was claimed twice or a fence did not hold.
 */

const ROW_CHOICES = ["10000", "100000", "1000000", "10000,100000", "100000,1000000", "10000,100000,1000000"] as const;

const ROWS: TBenchChoiceFlag<(typeof ROW_CHOICES)[number]> = {
  name: "claim-rows",
  env: "BENCH_CLAIM_ROWS",
  default: "100000",
  choices: ROW_CHOICES,
  description:
    "tracker rows, one throw-away database per size, side by side (the 1M step: ~11 min on a loaded 2-core machine, mostly the fill)",
};
const DUE: TBenchFlag = {
  name: "claim-due",
  env: "BENCH_CLAIM_DUE",
  default: 300,
  min: 1,
  max: 100_000,
  integer: true,
  description: "trackers due at any moment of the latency phase (kept steady: each claim is replaced untimed)",
};
const LIMIT: TBenchFlag = {
  name: "claim-limit",
  env: "BENCH_CLAIM_LIMIT",
  default: 16,
  min: 1,
  max: 64,
  integer: true,
  description: "trackers per claim (the claim loop asks for its free lanes: REFRESH_CONCURRENCY, at most 64)",
};
const SAMPLES: TBenchFlag = {
  name: "claim-samples",
  env: "BENCH_CLAIM_SAMPLES",
  default: 200,
  min: 10,
  max: 5000,
  integer: true,
  description: "claims timed in the latency phase (each followed by its runs' final writes, timed)",
};
const BACKLOG: TBenchFlag = {
  name: "claim-backlog",
  env: "BENCH_CLAIM_BACKLOG",
  default: 4000,
  min: 100,
  max: 200_000,
  integer: true,
  description: "trackers made due before each contention round, claimed and written until none is left",
};
const RUNS: TBenchFlag = {
  name: "claim-runs-per-tracker",
  env: "BENCH_CLAIM_RUNS",
  default: 1,
  min: 0,
  max: 20,
  integer: true,
  description: "stored RefreshRun rows (each with its usage-ledger row) per tracker, for the indexes the write grows",
};

const CLAIMERS = [1, 4, 16] as const;
const USERS = 40;
const HOSTS = 5000;
/** Trackers whose lease another worker holds (due, not claimable): the claim's index scan steps over them. */
const IN_FLIGHT = 64;
const LEASE_MS = 60_000;
const TABLES = [
  "Tracker",
  "TrackerDefinition",
  "TrackedEntity",
  "EntityCurrentState",
  "RefreshRun",
  "CapabilityCall",
  "EntityChange",
] as const;

type TOptions = { due: number; limit: number; samples: number; backlog: number; runs: number };

type TPlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  "Shared Dirtied Blocks"?: number;
  Plans?: TPlanNode[];
};
type TExplain = { Plan: TPlanNode; "Planning Time": number; "Execution Time": number };

type TPlanSummary = { scans: string; executionMs: number; planningMs: number; hit: number; read: number };

type TContention = {
  claimers: number;
  due: number;
  claimed: number;
  duplicates: number;
  lostFences: number;
  wallMs: number;
  claimMs: number[];
  writeMs: number[];
  cpuMs: number;
};

type TSizeResult = {
  rows: number;
  fillMs: number;
  counts: { active: number; due: number };
  claimMs: number[];
  claimedPerClaim: number[];
  singleWriteMs: number[];
  batchWriteMs: number[];
  batchRuns: number[];
  claimPlanFresh: TPlanSummary;
  claimPlanChurned: TPlanSummary;
  claimPlanText: string;
  writePlan: TPlanSummary;
  batchPlan: TPlanSummary;
  prunePlan: TPlanSummary;
  contention: TContention[];
  sizes: { table: string; rows: number; heap: number; index: number; total: number }[];
  failures: string[];
};

// --- synthetic rows --------------------------------------------------------------------------------------------

/** Ids shaped like the app's (25-character cuid-like, random order in the B-trees), derived from the series number. */
const idSql = (prefix: string, g: string) => `'${prefix}' || substr(md5('${prefix}' || ${g}), 1, 24)`;

/**
 * The rows, in one throw-away database: users; trackers (2 % draft, 5 % paused with a past nextRunAt — still in the
 * (status, nextRunAt) index —, 2 % archived, the rest active on 15 min … daily schedules); ~`due` active trackers
 * due now, IN_FLIGHT due but leased to "another worker"; every locked tracker with its definition, entity and state,
 * `runs` unchanged runs with a usage-ledger row each, and a material change for one tracker in ten.
 */
async function fill(client: pg.Client, n: number, o: TOptions, t0: string): Promise<string> {
  // Seconds per step ("Tracker 2.1 s, …"), to see what the fill spends its time on.
  const times: string[] = [];
  const q = async (text: string, values?: unknown[]) => {
    const t = performance.now();
    await client.query(text, values);
    const what = /^(?:INSERT INTO|VACUUM ANALYZE) "(\w+)"/.exec(text.trim())?.[1];
    if (what)
      times.push(
        `${text.trim().startsWith("VACUUM") ? "vacuum " : ""}${what} ${fmt((performance.now() - t) / 1000)} s`,
      );
  };
  // Bench setup only, on this connection: no WAL flush per statement, and no foreign-key trigger per row (the rows are
  // consistent by construction). The measured statements run on the app's own connections with the app's settings.
  await q("SET synchronous_commit = off");
  await q("SET session_replication_role = replica");
  await q(
    `INSERT INTO "User" ("id", "email", "name", "role", "createdAt", "updatedAt")
     SELECT 'bench-user-' || u, 'bench' || u || '@example.com', 'Bench ' || u, 'member', $1::timestamp, $1::timestamp
     FROM generate_series(0, ${USERS - 1}) u`,
    [t0],
  );
  // (g * 7919) % n is a permutation of 0…n-1 (7919 is prime, n is not a multiple of it): the first `due` slots are
  // due, the next IN_FLIGHT leased, spread over the whole id range.
  const slot = `((g::bigint * 7919) % ${n})`;
  const status = `CASE WHEN g % 100 < 2 THEN 'draft' WHEN g % 100 < 7 THEN 'paused' WHEN g % 100 < 9 THEN 'archived' ELSE 'active' END`;
  const schedule = `CASE WHEN (g / 100) % 20 = 0 THEN 15 WHEN (g / 100) % 20 < 13 THEN 60 WHEN (g / 100) % 20 < 16 THEN 360 ELSE 1440 END`;
  await q(
    `INSERT INTO "Tracker" ("id", "userId", "decision", "capability", "capabilityInput", "status", "lockedVersion",
       "scheduleMinutes", "nextRunAt", "lastRunAt", "leaseToken", "leaseExpiresAt", "createdAt", "updatedAt")
     SELECT ${idSql("c", "g")}, 'bench-user-' || (g % ${USERS}),
       'Is competitor ' || (g % ${HOSTS}) || ' undercutting our Pro plan?', 'web.scrape',
       jsonb_build_object('url', 'https://shop-' || (g % ${HOSTS}) || '.example/products/' || g),
       s.status::"TrackerStatus", CASE WHEN s.status = 'draft' THEN NULL ELSE 1 END, s.schedule,
       CASE
         WHEN s.status IN ('draft', 'archived') THEN NULL
         WHEN s.status = 'paused' THEN $1::timestamp - random() * interval '30 days'
         WHEN ${slot} < ${o.due + IN_FLIGHT} THEN $1::timestamp - random() * interval '10 minutes'
         ELSE $1::timestamp + interval '1 second' + random() * s.schedule * interval '1 minute'
       END,
       CASE WHEN s.status = 'draft' THEN NULL ELSE $1::timestamp - random() * s.schedule * interval '1 minute' END,
       CASE WHEN s.status = 'active' AND ${slot} >= ${o.due} AND ${slot} < ${o.due + IN_FLIGHT}
         THEN 'other-worker:' || g END,
       CASE WHEN s.status = 'active' AND ${slot} >= ${o.due} AND ${slot} < ${o.due + IN_FLIGHT}
         THEN $1::timestamp + interval '60 seconds' END,
       $1::timestamp - interval '90 days', $1::timestamp
     FROM generate_series(1, ${n}) g, LATERAL (SELECT ${status} AS status, ${schedule} AS schedule) s`,
    [t0],
  );
  const locked = `FROM generate_series(1, ${n}) g WHERE g % 100 >= 2`;
  await q(
    `INSERT INTO "TrackerDefinition" ("id", "trackerId", "version", "definition", "lockedAt", "createdAt")
     SELECT ${idSql("d", "g")}, ${idSql("c", "g")}, 1, $2::jsonb, $1::timestamp - interval '90 days',
       $1::timestamp - interval '90 days' ${locked}`,
    [t0, JSON.stringify(BENCH_DEFINITION)],
  );
  await q(
    `INSERT INTO "TrackedEntity" ("id", "trackerId", "entityKey", "firstSeenAt")
     SELECT ${idSql("e", "g")}, ${idSql("c", "g")}, 'https://shop-' || (g % ${HOSTS}) || '.example/products/' || g,
       $1::timestamp - interval '90 days' ${locked}`,
    [t0],
  );
  await q(
    `INSERT INTO "EntityCurrentState" ("entityId", "fields", "observed", "contentHash", "definitionVersion",
       "lastCheckedAt", "updatedAt")
     SELECT ${idSql("e", "g")}, jsonb_build_object('price', 29 + g % 50, 'rating', 4.2, 'notable_signals', '[]'::jsonb),
       jsonb_build_object('price', 29 + g % 50, 'rating', 4.2), md5('h' || g) || md5('i' || g), 1,
       $1::timestamp - interval '30 minutes', $1::timestamp - interval '30 days' ${locked}`,
    [t0],
  );
  if (o.runs > 0) {
    const runId = "substr(md5('r' || g || ':' || r), 1, 36)";
    const steps = JSON.stringify([
      { step: "crawl", status: "ok", ms: 184 },
      { step: "precheck", status: "ok", ms: 2, detail: "unchanged" },
      { step: "append", status: "ok", ms: 0 },
    ]);
    await q(
      `INSERT INTO "RefreshRun" ("id", "trackerId", "trigger", "status", "outcome", "summary", "definitionVersion",
         "steps", "modelCalls", "inputTokens", "outputTokens", "attempt", "createdAt", "startedAt", "finishedAt")
       SELECT ${runId}, ${idSql("c", "g")}, 'scheduler', 'completed', 'unchanged',
         'Unchanged: the page reads the same.', 1, $2::jsonb, 0, 0, 0, 1,
         $1::timestamp - r * interval '1 hour', $1::timestamp - r * interval '1 hour',
         $1::timestamp - r * interval '1 hour' + interval '190 milliseconds'
       ${locked.replace("g WHERE", `g, generate_series(1, ${o.runs}) r WHERE`)}`,
      [t0, steps],
    );
    await q(
      `INSERT INTO "CapabilityCall" ("id", "runId", "callKey", "capability", "status", "httpStatus", "requests",
         "bytes", "durationMs", "createdAt")
       SELECT md5('cc' || g || ':' || r), ${runId}, 'crawl:web.scrape', 'web.scrape', 'completed', 200, 1,
         20000 + g % 30000, 150 + g % 200, $1::timestamp - r * interval '1 hour'
       ${locked.replace("g WHERE", `g, generate_series(1, ${o.runs}) r WHERE`)}`,
      [t0],
    );
    await q(
      `INSERT INTO "EntityChange" ("id", "entityId", "trackerId", "runId", "capturedAt", "delta", "materiality",
         "decisions", "definitionVersion")
       SELECT ${idSql("x", "g")}, ${idSql("e", "g")}, ${idSql("c", "g")}, substr(md5('r' || g || ':1'), 1, 36),
         $1::timestamp - interval '1 hour', jsonb_build_object('price', jsonb_build_object('from', 34, 'to', 29 + g % 50)),
         'material', $2::jsonb, 1
       ${locked} AND g % 10 = 0`,
      [
        t0,
        JSON.stringify({
          price: { verdict: "material", decidedBy: "code", reason: "Price fell by 14.7 % (rule: 5 % or more)" },
        }),
      ],
    );
  }
  await q("SET session_replication_role = DEFAULT");
  for (const t of TABLES) await q(`VACUUM ANALYZE "${t}"`);
  await q(`VACUUM ANALYZE "User"`);
  return times.join(", ");
}

/**
 * Keeps ~`due` trackers due: `k` random active trackers whose lease is free get a nextRunAt in the past (untimed,
 * as trackers falling due while the scheduler works).
 */
async function makeDue(client: pg.Client, n: number, k: number, t0: string): Promise<void> {
  await client.query(
    `UPDATE "Tracker" SET "nextRunAt" = $1::timestamp - random() * interval '10 minutes'
     WHERE "id" IN (SELECT ${idSql("c", `(1 + floor(random() * ${n}))::int`)} FROM generate_series(1, ${k}))
       AND "status" = 'active' AND "leaseToken" IS NULL`,
    [t0],
  );
}

async function countDue(client: pg.Client, t0: string): Promise<{ active: number; due: number }> {
  const { rows } = await client.query<{ active: string; due: string }>(
    `SELECT count(*) FILTER (WHERE "status" = 'active') AS active,
       count(*) FILTER (WHERE "status" = 'active' AND "nextRunAt" <= $1::timestamp
         AND ("leaseToken" IS NULL OR "leaseExpiresAt" < $1::timestamp)) AS due
     FROM "Tracker"`,
    [t0],
  );
  return { active: Number(rows[0]?.active), due: Number(rows[0]?.due) };
}

// --- the app's statements --------------------------------------------------------------------------------------

/** A scheduled unchanged check's final write, as finish-run.ts composes it (fence + count on the day + state stamp + event). */
function unchangedFinal(claimed: TLoadedTracker): TFinalWrite {
  const startedAt = new Date();
  const finishedAt = new Date(startedAt.getTime() + 190);
  const entity = claimed.entities[0];
  const run = {
    id: randomUUID(),
    trackerId: claimed.id,
    trigger: "worker",
    idempotencyKey: null,
    status: "completed" as const,
    outcome: "unchanged",
    summary: "Unchanged: the page reads the same.",
    definitionVersion: claimed.lockedVersion,
    steps: [
      { step: "crawl" as const, status: "ok" as const, ms: 184 },
      { step: "precheck" as const, status: "ok" as const, ms: 2, detail: "unchanged" },
      { step: "append" as const, status: "ok" as const, ms: 0 },
    ],
    modelCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    error: null,
    startedAt,
    finishedAt,
  };
  // As run-context.ts's checkedEvent (its payload is what every listening process receives).
  const data = { userId: claimed.userId, trackerId: claimed.id, runId: run.id, outcome: "unchanged" as const };
  const checked = prepareEvent("tracker.checked", data);
  return successWrite({
    run,
    success: {
      trackerId: claimed.id,
      leaseToken: claimed.leaseToken,
      scheduleMinutes: claimed.scheduleMinutes,
      now: finishedAt,
    },
    ledger: [
      {
        callKey: `crawl:${claimed.capability}`,
        info: {
          capability: claimed.capability,
          input: claimed.capabilityInput,
          status: "completed",
          httpStatus: 200,
          requests: 1,
          bytes: 38_000,
          durationMs: 184,
          startedAt,
        },
      },
    ],
    writes: stampWrites({ entityId: entity?.id ?? "", contentHash: entity?.contentHash ?? "" }),
    notify: [checked.notify],
  });
}

/** The statement a function would send, captured instead of sent (a client without a hot driver takes `$queryRaw`). */
async function captureSql(call: (db: TDb) => Promise<unknown>): Promise<Prisma.Sql> {
  let captured: Prisma.Sql | undefined;
  const fake = {
    $queryRaw: async (sql: Prisma.Sql) => {
      captured = sql;
      return [];
    },
  } as unknown as TDb;
  await call(fake);
  if (!captured) throw new Error("no statement was captured");
  return captured;
}

/** EXPLAIN (ANALYZE, BUFFERS) of a captured statement, in a transaction rolled back (the claim and the write write). */
async function explain(client: pg.Client, sql: Prisma.Sql): Promise<{ json: TExplain; text: string }> {
  // Dates as the hot driver sends them (ISO, read as UTC by `timestamp` columns).
  const values = sql.values.map((v) => (v instanceof Date ? v.toISOString() : v));
  const once = async () => {
    await client.query("BEGIN");
    try {
      return await client.query<{ "QUERY PLAN": TExplain[] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql.text}`,
        values,
      );
    } finally {
      await client.query("ROLLBACK");
    }
  };
  // The first execution on this connection also loads catalog caches: measured is the second.
  await once();
  const json = await once();
  await client.query("BEGIN");
  try {
    const text = await client.query<{ "QUERY PLAN": string }>(
      `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql.text}`,
      values,
    );
    return {
      json: json.rows[0]?.["QUERY PLAN"][0] as TExplain,
      text: text.rows.map((r) => r["QUERY PLAN"]).join("\n"),
    };
  } finally {
    await client.query("ROLLBACK");
  }
}

/** The plan's scans of the named tables: node, index, rows returned (+ filtered out), and the statement's buffers. */
function summarisePlan(plan: TExplain, relations: readonly string[]): TPlanSummary {
  // Primary-key and unique-key lookups counted per index; any other scan (a range walk, a Seq Scan) spelled out.
  const walks: string[] = [];
  const lookups = new Map<string, number>();
  const walk = (node: TPlanNode) => {
    if (node["Relation Name"] && relations.includes(node["Relation Name"]) && /Scan/.test(node["Node Type"])) {
      const rows = (node["Actual Rows"] ?? 0) * (node["Actual Loops"] ?? 1);
      const removed = node["Rows Removed by Filter"] ?? 0;
      const index = node["Index Name"];
      if (index && /(_pkey|_key)$/.test(index))
        lookups.set(index, (lookups.get(index) ?? 0) + (node["Actual Loops"] ?? 1));
      else {
        const how = index ? `${node["Node Type"]} ${index}` : `${node["Node Type"]} ${node["Relation Name"]}`;
        walks.push(`${how}: ${rows} rows${removed ? ` (+${removed} filtered)` : ""}`);
      }
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan.Plan);
  const scans = [...walks, ...[...lookups].map(([index, loops]) => `${index} ×${loops}`)];
  return {
    scans: scans.join("; ") || "(none)",
    executionMs: plan["Execution Time"],
    planningMs: plan["Planning Time"],
    hit: plan.Plan["Shared Hit Blocks"] ?? 0,
    read: plan.Plan["Shared Read Blocks"] ?? 0,
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

// --- one size --------------------------------------------------------------------------------------------------

async function runSize(serverUrl: string, n: number, o: TOptions, out: (line: string) => void): Promise<TSizeResult> {
  const database = `${BENCH_DATABASE_PREFIX}claim_${process.pid}_${randomBytes(3).toString("hex")}`;
  await withAdminClient(serverUrl, (admin) => admin.query(`CREATE DATABASE "${database}"`));
  const url = urlForDatabase(serverUrl, database);
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  const handles: { db: TDb; close: () => Promise<void> }[] = [];
  const previousUrl = process.env.DATABASE_URL;
  // On PostgreSQL every final write carries its run's `tracker.checked` NOTIFY (prepareEvent reads DATABASE_URL).
  process.env.DATABASE_URL = url;
  resetEnvForTests();
  // Every app process LISTENs to the events channel; one listener here, as one app server.
  const listener = new pg.Client({ connectionString: url });
  listener.on("error", () => {});
  try {
    await withAdminClient(url, (c) => applyMigrations(pgClientRunner(c)));
    await client.connect();
    await listener.connect();
    await listener.query(`LISTEN bellwether_events`);
    const t0 = new Date().toISOString();
    const t0Date = new Date(t0);
    out(`  ${fmt(n, 0)} trackers: filling ${describePostgresUrl(url)} …`);
    const fillStarted = performance.now();
    const fillSteps = await fill(client, n, o, t0);
    const fillMs = performance.now() - fillStarted;
    out(`    ${fillSteps}`);
    const counts = await countDue(client, t0);
    out(`    filled in ${fmt(fillMs / 1000)} s: ${fmt(counts.active, 0)} active, ${fmt(counts.due, 0)} claimable now`);

    const main = await createPostgresDb(url);
    handles.push(main);
    const failures: string[] = [];
    const claim = (db: TDb) => claimDueTrackers(db, { limit: o.limit, now: t0Date, leaseMs: LEASE_MS });

    // The claim's plan on freshly vacuumed tables.
    const claimSql = await captureSql((db) => claim(db));
    const fresh = await explain(client, claimSql);
    const claimPlanFresh = summarisePlan(fresh.json, ["Tracker"]);

    // Latency: one claimer (as one worker), the due set kept steady; each claim's runs written one per statement on
    // even samples (refreshTracker alone, Refresh now) and as one batch on odd ones (the claim loop's batch).
    const claimMs: number[] = [];
    const claimedPerClaim: number[] = [];
    const singleWriteMs: number[] = [];
    const batchWriteMs: number[] = [];
    const batchRuns: number[] = [];
    const warmup = 10;
    for (let i = 0; i < o.samples + warmup; i++) {
      await makeDue(client, n, o.limit, t0);
      const c = await timed(() => claim(main.db));
      const inputs = c.value.map(unchangedFinal);
      if (i % 2 === 0) {
        for (const [k, input] of inputs.entries()) {
          const w = await timed(() => writeRunFinal(main.db, input));
          if (!w.value.held) failures.push(`fence lost (single write) for ${c.value[k]?.id}`);
          if (i >= warmup) singleWriteMs.push(w.ms);
        }
      } else if (inputs.length > 0) {
        const w = await timed(() => writeRunFinals(main.db, inputs));
        if (w.value.some((held) => !held)) failures.push("fence lost (batch write)");
        if (i >= warmup) {
          batchWriteMs.push(w.ms);
          batchRuns.push(inputs.length);
        }
      }
      if (i >= warmup) {
        claimMs.push(c.ms);
        claimedPerClaim.push(c.value.length);
      }
    }

    // The claim's plan after that churn (autovacuum may be off: this server's setting is printed) and the final
    // write's plans, one run and a batch, on real leases (then written for real, so the leases are released).
    const churned = await explain(client, claimSql);
    await makeDue(client, n, o.limit * 2, t0);
    const forPlans = await claim(main.db);
    const [first, ...rest] = forPlans.map(unchangedFinal);
    if (!first || rest.length === 0) throw new Error("too few trackers claimed for the final write's plans");
    const writePlan = summarisePlan(
      (await explain(client, await captureSql((db) => writeRunFinals(db, [first])))).json,
      TABLES,
    );
    const batchPlan = summarisePlan(
      (await explain(client, await captureSql((db) => writeRunFinals(db, rest)))).json,
      TABLES,
    );
    await writeRunFinals(main.db, [first, ...rest]);
    // Retention's batch (server/retention) with RUN_RETENTION_DAYS' default: here nothing is that old, so this is the
    // cost of a pass that finds nothing to prune, i.e. of reading every run to learn so.
    const prunePlan = summarisePlan(
      (await explain(client, pruneBatchSql(new Date(t0Date.getTime() - 14 * 86_400_000), 2000))).json,
      TABLES,
    );

    // Contention: 1, 4, 16 claimers, each on its own pool (as separate worker processes), over the same backlog.
    const contention: TContention[] = [];
    for (const claimers of CLAIMERS) {
      while (handles.length < claimers + 1) handles.push(await createPostgresDb(url));
      const dbs = handles.slice(1, claimers + 1).map((h) => h.db);
      // Each claimer's connection open and its named statements prepared (a claim that finds nothing: same text).
      await Promise.all(dbs.map((db) => claimDueTrackers(db, { limit: o.limit, now: new Date(0), leaseMs: LEASE_MS })));
      await client.query(`VACUUM "Tracker"`);
      await makeDue(client, n, o.backlog, t0);
      const { due } = await countDue(client, t0);
      const seen = new Map<string, number>();
      const result: TContention = {
        claimers,
        due,
        claimed: 0,
        duplicates: 0,
        lostFences: 0,
        wallMs: 0,
        claimMs: [],
        writeMs: [],
        cpuMs: 0,
      };
      const cpu = process.cpuUsage();
      const started = performance.now();
      await Promise.all(
        dbs.map(async (db) => {
          for (;;) {
            const c = await timed(() => claim(db));
            result.claimMs.push(c.ms);
            if (c.value.length === 0) return;
            for (const t of c.value) seen.set(t.id, (seen.get(t.id) ?? 0) + 1);
            result.claimed += c.value.length;
            const w = await timed(() => writeRunFinals(db, c.value.map(unchangedFinal)));
            result.writeMs.push(w.ms);
            result.lostFences += w.value.filter((held) => !held).length;
          }
        }),
      );
      result.wallMs = performance.now() - started;
      const used = process.cpuUsage(cpu);
      result.cpuMs = (used.user + used.system) / 1000;
      result.duplicates = [...seen.values()].reduce((sum, k) => sum + (k - 1), 0);
      if (result.duplicates > 0) failures.push(`${result.duplicates} trackers claimed twice by ${claimers} claimers`);
      if (result.lostFences > 0) failures.push(`${result.lostFences} fences lost with ${claimers} claimers`);
      contention.push(result);
      out(
        `    ${claimers} claimer(s): ${result.claimed} claimed of ${due} due in ${fmt(result.wallMs / 1000, 2)} s, ${result.duplicates} twice`,
      );
    }

    const { rows: sizeRows } = await client.query<{
      table: string;
      heap: string;
      index: string;
      total: string;
    }>(
      `SELECT c.relname AS "table", pg_table_size(c.oid)::text AS heap, pg_indexes_size(c.oid)::text AS "index",
         pg_total_relation_size(c.oid)::text AS total
       FROM pg_class c WHERE c.relname = ANY($1::text[]) AND c.relkind = 'r'`,
      [TABLES],
    );
    const sizes: TSizeResult["sizes"] = [];
    for (const t of TABLES) {
      const row = sizeRows.find((r) => r.table === t);
      const count = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${t}"`)).rows[0]?.n);
      sizes.push({
        table: t,
        rows: count,
        heap: Number(row?.heap),
        index: Number(row?.index),
        total: Number(row?.total),
      });
    }
    return {
      rows: n,
      fillMs,
      counts,
      claimMs,
      claimedPerClaim,
      singleWriteMs,
      batchWriteMs,
      batchRuns,
      claimPlanFresh,
      claimPlanChurned: summarisePlan(churned.json, ["Tracker"]),
      claimPlanText: fresh.text,
      writePlan,
      batchPlan,
      prunePlan,
      contention,
      sizes,
      failures,
    };
  } finally {
    await Promise.allSettled(handles.map((h) => h.close()));
    await Promise.allSettled([client.end(), listener.end()]);
    if (previousUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previousUrl;
    resetEnvForTests();
    await withAdminClient(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  }
}

// --- report ----------------------------------------------------------------------------------------------------

const ms = (values: readonly number[], p: number) => fmt(percentile(values, p), 2);
const perRow = (bytes: number, rows: number) => (rows > 0 ? `${fmt(bytes / rows, 0)} B` : "–");

function report(results: TSizeResult[], o: TOptions, settings: string, out: (line: string) => void): void {
  const head = ["", ...results.map((r) => `${fmt(r.rows, 0)} trackers`)];
  const col = (f: (r: TSizeResult) => string) => results.map(f);
  const plan = (p: TPlanSummary) =>
    `run ${fmt(p.executionMs, 2)} + plan ${fmt(p.planningMs, 2)} ms, ${p.hit} hit + ${p.read} read`;
  out("");
  out(
    `  side by side (SYNTHETIC rows, no page fetched: the database's cost of the scheduler's statements only; ${settings})`,
  );
  out(
    table(
      [
        head,
        ["active trackers / claimable at start", ...col((r) => `${fmt(r.counts.active, 0)} / ${r.counts.due}`)],
        ["rows filled in (generate_series)", ...col((r) => `${fmt(r.fillMs / 1000)} s`)],
        [`claim (limit ${o.limit}), ms p50 / p95`, ...col((r) => `${ms(r.claimMs, 50)} / ${ms(r.claimMs, 95)}`)],
        [
          "trackers per claim (mean)",
          ...col((r) => fmt(r.claimedPerClaim.reduce((a, b) => a + b, 0) / r.claimedPerClaim.length, 1)),
        ],
        ["claim plan, Tracker range scan", ...col((r) => r.claimPlanFresh.scans.split("; ")[0] ?? "")],
        ["claim EXPLAIN ANALYZE, vacuumed", ...col((r) => plan(r.claimPlanFresh))],
        [`claim EXPLAIN ANALYZE, after ${o.samples} claims`, ...col((r) => plan(r.claimPlanChurned))],
        ["final write, 1 run, ms p50 / p95", ...col((r) => `${ms(r.singleWriteMs, 50)} / ${ms(r.singleWriteMs, 95)}`)],
        [
          `final write, batch (~${o.limit} runs), ms p50 / p95`,
          ...col((r) => `${ms(r.batchWriteMs, 50)} / ${ms(r.batchWriteMs, 95)}`),
        ],
        [
          "final write, batch, ms per run (p50)",
          ...col((r) => {
            const per = r.batchWriteMs.map((m, i) => m / (r.batchRuns[i] ?? 1));
            return fmt(percentile(per, 50), 3);
          }),
        ],
        ["final write EXPLAIN, 1 run", ...col((r) => plan(r.writePlan))],
        ["final write EXPLAIN, batch", ...col((r) => plan(r.batchPlan))],
        ["final write plan, 1 run: index lookups", ...col((r) => r.writePlan.scans)],
        ["retention batch EXPLAIN (nothing to prune)", ...col((r) => plan(r.prunePlan))],
        ["retention batch, RefreshRun scan", ...col((r) => r.prunePlan.scans.split("; ")[0] ?? "")],
      ],
      "  ",
    ),
  );
  out("");
  out(
    `  contention: N claimers (each its own pool, as N worker processes; all in this one Node process) claim ${o.limit} at a time and write each batch, until the backlog is gone`,
  );
  const rows: string[][] = [
    [
      "trackers",
      "claimers",
      "due",
      "claimed",
      "claimed twice",
      "fences lost",
      "claimed+written/s",
      "claim p50 / p95 ms",
      "write p50 / p95 ms",
      "bench CPU ms",
    ],
  ];
  for (const r of results) {
    for (const c of r.contention) {
      rows.push([
        fmt(r.rows, 0),
        String(c.claimers),
        fmt(c.due, 0),
        fmt(c.claimed, 0),
        String(c.duplicates),
        String(c.lostFences),
        fmt(c.claimed / (c.wallMs / 1000), 0),
        `${ms(c.claimMs, 50)} / ${ms(c.claimMs, 95)}`,
        `${ms(c.writeMs, 50)} / ${ms(c.writeMs, 95)}`,
        fmt(c.cpuMs, 0),
      ]);
    }
  }
  out(table(rows, "  "));
  out("");
  out("  table sizes after the run (heap incl. TOAST / indexes, per row)");
  const sizeRows: string[][] = [
    ["table", ...results.flatMap((r) => [`rows @${fmt(r.rows, 0)}`, "heap / row", "indexes / row", "total"])],
  ];
  for (const t of TABLES) {
    sizeRows.push([
      t,
      ...results.flatMap((r) => {
        const s = r.sizes.find((x) => x.table === t);
        if (!s) return ["–", "–", "–", "–"];
        return [fmt(s.rows, 0), perRow(s.heap, s.rows), perRow(s.index, s.rows), `${fmt(s.total / 2 ** 20, 1)} MB`];
      }),
    ]);
  }
  out(table(sizeRows, "  "));
  const largest = results[results.length - 1];
  if (largest) {
    out("");
    out(`  the claim's plan at ${fmt(largest.rows, 0)} trackers (EXPLAIN ANALYZE, BUFFERS, vacuumed; rolled back)`);
    for (const line of largest.claimPlanText.split("\n")) out(`    ${line}`);
  }
}

async function serverSettings(serverUrl: string): Promise<string> {
  return withAdminClient(serverUrl, async (c) => {
    const { rows } = await c.query<{ name: string; setting: string; unit: string | null }>(
      `SELECT name, setting, unit FROM pg_settings WHERE name IN ('server_version', 'shared_buffers', 'autovacuum', 'max_connections')`,
    );
    const get = (name: string) => rows.find((r) => r.name === name);
    const sb = get("shared_buffers");
    const sbMb = sb ? (Number(sb.setting) * 8) / 1024 : Number.NaN;
    return `PostgreSQL ${get("server_version")?.setting}, shared_buffers ${fmt(sbMb, 0)} MB, autovacuum ${get("autovacuum")?.setting}, max_connections ${get("max_connections")?.setting}`;
  });
}

export const claimScaleBenchmark: TBenchmark = {
  name: "claim-scale",
  description:
    "the scheduler's claim and a run's final write at 100k / 1M synthetic trackers on PostgreSQL (TEST_DATABASE_URL): latency, plans, N claimers",
  flags: [ROWS, DUE, LIMIT, SAMPLES, BACKLOG, RUNS],
  async run(args, out) {
    const serverUrl = testDatabaseUrl;
    if (!serverUrl) {
      out(
        "  claim-scale: skipped — needs TEST_DATABASE_URL (a PostgreSQL server whose user may create databases, e.g. postgresql://postgres@127.0.0.1:5432/postgres).",
      );
      return;
    }
    const sizes = choiceOption(args, ROWS).split(",").map(Number);
    const o: TOptions = {
      due: numberOption(args, DUE),
      limit: numberOption(args, LIMIT),
      samples: numberOption(args, SAMPLES),
      backlog: numberOption(args, BACKLOG),
      runs: numberOption(args, RUNS),
    };
    const settings = await serverSettings(serverUrl);
    out(
      `  claim-scale on ${describePostgresUrl(serverUrl)} (${settings}); ${USERS} users, ${HOSTS} hosts, ~${o.due} due + ${IN_FLIGHT} leased elsewhere, ${o.runs} runs per tracker`,
    );
    const results: TSizeResult[] = [];
    for (const n of sizes) results.push(await runSize(serverUrl, n, o, out));
    report(results, o, settings, out);
    const failures = results.flatMap((r) => r.failures);
    if (failures.length > 0) {
      out("");
      out(
        `  FAILED: ${failures.slice(0, 5).join("; ")}${failures.length > 5 ? ` (+${failures.length - 5} more)` : ""}`,
      );
      process.exitCode = 1;
    }
  },
};

import { createHash, randomUUID } from "node:crypto";
import type { TUsageInfo, TUsageLedger } from "../../capabilities";
import type { TDb, TTx } from "../../db";
import { rowSetSql, type TCte } from "../../db-cte";
import { queryHot } from "../../db-hot-statements";
import { Prisma } from "../../generated/prisma/client";
import { STAMP_ROW_COLUMNS, stampCheckedRowsSql, type TStampRow } from "../../timeline";
import {
  CHECK_COUNT_ROW_COLUMNS,
  countCheckRowsSql,
  countCheckSql,
  type TCheckCountRow,
  type TCheckUsage,
} from "../../usage";
import type { TModelUsage } from "../fill";
import { refreshSuccessRowsSql, SUCCESS_ROW_COLUMNS, type TExistingRun, type TSuccessRow } from "../tracker-store";
import type { TRunStep } from "./run-steps";

/**
 * The RefreshRun and CapabilityCall tables (this module owns their writes). A run is written ONCE, when
 * it ends, inside the run's final statement (docs/refresh.md): the runs log never shows a run
 * that never finishes, and an unchanged refresh costs one read and one write. A scheduled unchanged check is
 * counted on its tracker's day instead of stored (`isCountedCheck`). While it runs, its progress
 * lives in memory (onStep) and its lease in the tracker row.
 */

/** The run id: random, or derived from (tracker, idempotency key) so every delivery of a key names the same run. */
export function runIdFor(trackerId: string, idempotencyKey?: string | null): string {
  if (!idempotencyKey) return randomUUID();
  const h = createHash("sha256").update(`${trackerId}\0${idempotencyKey}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** One capability call of a run, kept in memory until its final write. */
export type TBufferedLedgerEntry = { callKey: string; info: TUsageInfo };

/** The capability calls of a run, kept in memory until its final write (the usage ledger, one row per call key). */
export function createBufferedLedger(): TUsageLedger & { entries: TBufferedLedgerEntry[] } {
  const entries: TBufferedLedgerEntry[] = [];
  return {
    entries,
    record(callKey, info) {
      if (!entries.some((e) => e.callKey === callKey)) entries.push({ callKey, info });
    },
  };
}

export type TRunRecord = {
  id: string;
  trackerId: string;
  trigger: string;
  idempotencyKey: string | null;
  status: "completed" | "failed" | "skipped";
  outcome: string | null;
  summary: string;
  definitionVersion: number | null;
  steps: TRunStep[];
  modelCalls: number;
  usage: TModelUsage;
  error: { code: string; message: string; retryable: boolean } | null;
  startedAt: Date;
  finishedAt: Date;
  /** The stored capture this run judged (a new content hash) and what it decided from it (docs/replay.md). */
  captureId?: string | null;
  replayBasis?: unknown;
};

function runValuesSql(run: TRunRecord): Prisma.Sql {
  return Prisma.sql`${run.id}, ${run.trackerId}, ${run.trigger}::"RefreshTrigger", ${run.idempotencyKey}::text,
    ${run.status}::"RefreshRunStatus", ${run.outcome}::text, ${run.summary}, ${run.definitionVersion}::int,
    ${JSON.stringify(run.steps)}::jsonb, ${run.modelCalls}::int, ${run.usage.inputTokens}::int,
    ${run.usage.outputTokens}::int, ${run.error ? JSON.stringify(run.error) : null}::jsonb, 1,
    ${run.startedAt}, ${run.startedAt}, ${run.finishedAt}, ${run.captureId ?? null}::text,
    ${run.replayBasis === undefined ? null : JSON.stringify(run.replayBasis)}::jsonb`;
}

const RUN_COLUMNS = Prisma.raw(`"id", "trackerId", "trigger", "idempotencyKey", "status", "outcome", "summary",
  "definitionVersion", "steps", "modelCalls", "inputTokens", "outputTokens", "error", "attempt", "createdAt",
  "startedAt", "finishedAt", "captureId", "replayBasis"`);

/** What one run's final write carries (`writeRunFinal`, or one entry of `writeRunFinals`). */
export type TRunFinalInput = {
  /** The tracker-store's fenced bookkeeping UPDATE … RETURNING "id". */
  fence: Prisma.Sql;
  run: TRunRecord;
  ledger: { callKey: string; info: TUsageInfo }[];
  /** true: the run row only if the fence held (success). false: always (a failure is recorded either way). */
  fenced: boolean;
  /**
   * The other owners' parts, each guarded on `guard` (the name of this write's fencing CTE). In a statement of
   * several runs (`writeRunFinals`) each run's names get a suffix of their own, so there a part must not read another
   * part by name (an unchanged run's one part, the state stamp, does not; a change's outbox row reads its change).
   */
  extra?: (guard: string) => TCte[];
  notify?: ({ channel: string; payload: string } | null)[];
  /**
   * A scheduled check that found the page unchanged (or was deferred) is counted on its tracker's day (RunDailyStat),
   * not stored as a run row with its ledger rows (`isCountedCheck`); only when `fenced`.
   */
  countOnly?: boolean;
};

/** A counted check's usage: its ledger's sums (what its rows would have said). */
export function ledgerUsage(ledger: readonly { info: TUsageInfo }[]): TCheckUsage {
  return {
    capabilityCalls: ledger.length,
    requests: ledger.reduce((n, e) => n + e.info.requests, 0),
    bytes: ledger.reduce((n, e) => n + e.info.bytes, 0),
  };
}

/** The triggers whose unchanged checks are counted, not stored: the scheduled passes nobody waits on. */
const COUNTED_TRIGGERS: ReadonlySet<string> = new Set(["cron", "worker", "scheduler"]);

/**
 * Whether a finished run is only counted (docs/refresh.md "Unchanged checks are counted, not stored"): a scheduled
 * check, without an idempotency key (nobody can ask for it again), that found the page unchanged — stored no capture,
 * called no model — or was deferred by its host's gate (docs/scheduling.md "Politeness per host"). Everything else —
 * a person's or client's refresh, a change, a failure, a skipped run a key may replay — keeps its row.
 */
export function isCountedCheck(run: TRunRecord): boolean {
  if (!COUNTED_TRIGGERS.has(run.trigger) || run.idempotencyKey !== null || run.modelCalls !== 0) return false;
  if (run.status === "skipped") return run.outcome === "deferred";
  return run.status === "completed" && run.outcome === "unchanged" && !run.captureId;
}

/**
 * One run's sub-statements, every name ending in `suffix` ("" for a statement of its own): `fence`, the run row
 * and its ledger rows — inserted FROM the fence when `fenced`, so a run that lost its lease writes nothing — the
 * `extra` parts, and its NOTIFYs; `columns`: `held<suffix>` counts the fence's row, `notified<suffix>` the NOTIFYs
 * (a SELECT in WITH runs only when referenced).
 */
function runFinalParts(input: TRunFinalInput, suffix: string): { ctes: Prisma.Sql[]; columns: Prisma.Sql } {
  const name = (base: string) => Prisma.raw(`"${base}${suffix}"`);
  const fence = `fence${suffix}`;
  const source = input.fenced ? Prisma.sql`FROM ${name("fence")}` : Prisma.empty;
  const counted = input.countOnly === true && input.fenced;
  const ctes: Prisma.Sql[] = [
    Prisma.sql`${name("fence")} AS (${input.fence})`,
    counted
      ? Prisma.sql`${name("run")} AS (${countCheckSql({
          kind: input.run.status === "skipped" ? "skipped" : "unchanged",
          trackerId: input.run.trackerId,
          at: input.run.startedAt,
          usage: ledgerUsage(input.ledger),
          from: fence,
        })})`
      : Prisma.sql`${name("run")} AS (INSERT INTO "RefreshRun" (${RUN_COLUMNS}) SELECT ${runValuesSql(input.run)} ${source}
      ON CONFLICT DO NOTHING RETURNING "id")`,
  ];
  if (input.ledger.length > 0 && !counted) {
    const rows = input.ledger.map(
      ({ callKey, info }) => Prisma.sql`(${randomUUID()}, ${callKey}, ${info.capability}, ${info.status},
        ${info.errorCode ?? null}::text, ${info.httpStatus ?? null}::int, ${info.requests}::int, ${info.bytes}::int,
        ${info.durationMs}::int)`,
    );
    ctes.push(Prisma.sql`${name("ledger")} AS (INSERT INTO "CapabilityCall"
      ("id", "runId", "callKey", "capability", "status", "errorCode", "httpStatus", "requests", "bytes", "durationMs")
      SELECT x.id, r."id", x."callKey", x.capability, x.status, x."errorCode", x."httpStatus", x.requests,
        x.bytes, x."durationMs"
      FROM ${name("run")} r, (VALUES ${Prisma.join(rows)}) AS x(id, "callKey", capability, status, "errorCode", "httpStatus", requests, bytes, "durationMs")
      ON CONFLICT DO NOTHING)`);
  }
  for (const cte of input.extra?.(fence) ?? []) ctes.push(Prisma.sql`${name(cte.name)} AS (${cte.sql})`);
  const notify = (input.notify ?? []).filter((n) => n !== null);
  const held = Prisma.sql`(SELECT count(*) FROM ${name("fence")})::int AS ${name("held")}`;
  if (notify.length > 0) {
    const events = notify.map((n) => Prisma.sql`(${n.channel}::text, ${n.payload}::text)`);
    ctes.push(Prisma.sql`${name("notify")} AS (SELECT pg_notify(n.channel, n.payload)
      FROM ${name("run")}, (VALUES ${Prisma.join(events)}) AS n(channel, payload))`);
    return { ctes, columns: Prisma.sql`${held}, (SELECT count(*) FROM ${name("notify")})::int AS ${name("notified")}` };
  }
  return { ctes, columns: held };
}

/**
 * A scheduled check that found its page unchanged and is only counted (`isCountedCheck`), as rows rather than
 * statements (docs/refresh.md "Unchanged checks are counted, not stored"): its tracker's bookkeeping, fenced on its
 * lease (tracker-store), its state stamp (timeline), its day's count (usage) and its event. However many a statement
 * carries, they are written by the same four set-based sub-statements (`countedParts`): PostgreSQL sets up an UPDATE
 * once per sub-statement (the table and each of its indexes) and plans one statement text, not one per batch size — a
 * batch's database time 30–40% lower than with parts per run, its planning ~5× (docs/scale.md).
 */
export type TCountedWrite = {
  counted: {
    fence: TSuccessRow;
    stamp: TStampRow;
    count: TCheckCountRow;
    notify: { channel: string; payload: string } | null;
  };
  /** The same write as parts of its own: what a statement with no other counted check sends (cheaper for one). */
  alone: () => TRunFinalInput;
};

/** A run's final write: its own sub-statements (TRunFinalInput), or a counted check's rows (TCountedWrite). */
export type TFinalWrite = TRunFinalInput | TCountedWrite;

const isCounted = (input: TFinalWrite): input is TCountedWrite => "counted" in input;

/**
 * The counted checks' parts, over one source of rows (each run's row number `i`, its fence, stamp, count and event):
 * the fence UPDATE returns the `i` of every run whose lease held, and only those runs are stamped, counted and
 * announced. `held_counted`: those `i`, as JSON text.
 */
function countedParts(inputs: readonly TCountedWrite[]): { ctes: Prisma.Sql[]; columns: Prisma.Sql } {
  const rows = inputs.map(({ counted }, i) => ({
    i,
    ...counted.fence,
    ...counted.stamp,
    ...counted.count,
    channel: counted.notify?.channel ?? null,
    payload: counted.notify?.payload ?? null,
  }));
  const source = rowSetSql(
    rows,
    { i: "int", channel: "text", payload: "text" },
    SUCCESS_ROW_COLUMNS,
    STAMP_ROW_COLUMNS,
    CHECK_COUNT_ROW_COLUMNS,
  );
  const stamp = stampCheckedRowsSql("counted_held");
  return {
    ctes: [
      Prisma.sql`"counted_rows" AS (${source})`,
      Prisma.sql`"counted_fence" AS (${refreshSuccessRowsSql("counted_rows")})`,
      Prisma.sql`"counted_held" AS (SELECT x.* FROM "counted_rows" x JOIN "counted_fence" f ON f."i" = x."i")`,
      Prisma.sql`"counted_day" AS (${countCheckRowsSql("counted_held")})`,
      Prisma.sql`${Prisma.raw(`"counted_${stamp.name}"`)} AS (${stamp.sql})`,
      Prisma.sql`"counted_notify" AS (SELECT pg_notify(x."channel", x."payload") FROM "counted_held" x
        WHERE x."payload" IS NOT NULL)`,
    ],
    columns: Prisma.sql`(SELECT coalesce(json_agg("i"), '[]') FROM "counted_fence")::text AS "held_counted",
      (SELECT count(*) FROM "counted_notify")::int AS "notified_counted"`,
  };
}

/**
 * The run's one final statement (`runFinalParts`). `notify` (PostgreSQL: events for other instances, server/events
 * prepareEvent) are sent by the same statement, only when the run row was written, and — being one statement —
 * only when it commits. Returns whether the fence held. On PGlite and PostgreSQL alike; one round trip.
 */
export async function writeRunFinal(db: TDb | TTx, input: TFinalWrite): Promise<{ held: boolean }> {
  const [held] = await writeRunFinals(db, [input]);
  return { held: held ?? false };
}

/**
 * Several runs' final writes in ONE statement (the claim loop's batch of unchanged runs, final-write-batch.ts):
 * each entry's parts under names of its own, each fenced on its own lease — an entry whose fence does not hold
 * writes nothing, the others are written; the counted checks among them as rows of one set of parts (TCountedWrite).
 * Returns, per entry, whether its fence held. One entry: `writeRunFinal`.
 */
export async function writeRunFinals(db: TDb | TTx, inputs: readonly TFinalWrite[]): Promise<boolean[]> {
  if (inputs.length === 0) return [];
  // One counted check is written as parts of its own: the set-based parts pay for themselves from two on.
  const setBased = inputs.filter(isCounted).length > 1;
  const forms = inputs.map((input) => (isCounted(input) && !setBased ? input.alone() : input));
  const statements = forms.filter((input): input is TRunFinalInput => !isCounted(input));
  const counted = forms.filter(isCounted);
  const suffixes = statements.map((_, i) => (statements.length === 1 ? "" : `_${i}`));
  const parts = statements.map((input, i) => runFinalParts(input, suffixes[i] as string));
  if (counted.length > 0) parts.push(countedParts(counted));
  // Named and straight to the driver outside a transaction (server/db-hot-statements.ts); `$queryRaw` inside one.
  const rows = await queryHot<Record<string, number | string>>(
    db,
    Prisma.sql`
    WITH ${Prisma.join(
      parts.flatMap((p) => p.ctes),
      ", ",
    )}
    SELECT ${Prisma.join(
      parts.map((p) => p.columns),
      ", ",
    )}`,
  );
  const row = rows[0] ?? {};
  const heldCounted = new Set(JSON.parse(String(row.held_counted ?? "[]")) as number[]);
  let statement = 0;
  let countedIndex = 0;
  return forms.map((input) =>
    isCounted(input) ? heldCounted.has(countedIndex++) : Number(row[`held${suffixes[statement++] as string}`] ?? 0) > 0,
  );
}

/**
 * A run that did nothing (another refresh held the lease): recorded as skipped with its answer, so a replay
 * of its idempotency key returns the same answer without a fetch. Null → a run with this key exists already.
 */
export async function recordSkippedRun(db: TDb, run: TRunRecord): Promise<boolean> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    INSERT INTO "RefreshRun" (${RUN_COLUMNS}) VALUES (${runValuesSql(run)})
    ON CONFLICT DO NOTHING RETURNING "id"`;
  return rows.length > 0;
}

/** The run with this idempotency key (after losing an insert race to it). */
export async function findRunByKey(db: TDb, trackerId: string, idempotencyKey: string): Promise<TExistingRun | null> {
  const row = await db.refreshRun.findUnique({
    where: { trackerId_idempotencyKey: { trackerId, idempotencyKey } },
    select: { id: true, status: true, outcome: true, summary: true, modelCalls: true, error: true },
  });
  return row ? { ...row, error: (row.error as TExistingRun["error"]) ?? null } : null;
}

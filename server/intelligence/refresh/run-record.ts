import { createHash, randomUUID } from "node:crypto";
import type { TUsageInfo, TUsageLedger } from "../../capabilities";
import type { TDb, TTx } from "../../db";
import type { TCte } from "../../db-cte";
import { queryHot } from "../../db-hot-statements";
import { Prisma } from "../../generated/prisma/client";
import { countCheckSql } from "../../usage";
import type { TModelUsage } from "../fill";
import type { TExistingRun } from "../tracker-store";
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

/** The capability calls of a run, kept in memory until its final write (the usage ledger, one row per call key). */
export function createBufferedLedger(): TUsageLedger & { entries: { callKey: string; info: TUsageInfo }[] } {
  const entries: { callKey: string; info: TUsageInfo }[] = [];
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
          usage: {
            capabilityCalls: input.ledger.length,
            requests: input.ledger.reduce((n, e) => n + e.info.requests, 0),
            bytes: input.ledger.reduce((n, e) => n + e.info.bytes, 0),
          },
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
 * The run's one final statement (`runFinalParts`). `notify` (PostgreSQL: events for other instances, server/events
 * prepareEvent) are sent by the same statement, only when the run row was written, and — being one statement —
 * only when it commits. Returns whether the fence held. On PGlite and PostgreSQL alike; one round trip.
 */
export async function writeRunFinal(db: TDb | TTx, input: TRunFinalInput): Promise<{ held: boolean }> {
  const [held] = await writeRunFinals(db, [input]);
  return { held: held ?? false };
}

/**
 * Several runs' final writes in ONE statement (the claim loop's batch of unchanged runs, final-write-batch.ts):
 * each entry's parts under names of its own, each fenced on its own lease — an entry whose fence does not hold
 * writes nothing, the others are written. Returns, per entry, whether its fence held. One entry: `writeRunFinal`.
 */
export async function writeRunFinals(db: TDb | TTx, inputs: readonly TRunFinalInput[]): Promise<boolean[]> {
  if (inputs.length === 0) return [];
  const suffixes = inputs.map((_, i) => (inputs.length === 1 ? "" : `_${i}`));
  const parts = inputs.map((input, i) => runFinalParts(input, suffixes[i] as string));
  // Named and straight to the driver outside a transaction (server/db-hot-statements.ts); `$queryRaw` inside one.
  const rows = await queryHot<Record<string, number>>(
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
  return suffixes.map((suffix) => (row[`held${suffix}`] ?? 0) > 0);
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

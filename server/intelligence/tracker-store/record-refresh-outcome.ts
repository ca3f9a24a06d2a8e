import { Prisma } from "../../generated/prisma/client";
import type { TFieldHealth } from "./field-health-state";
import { computeNextRunAt, retryAfterHold } from "./next-run";
import type { TPageValidators } from "./page-validators";

type TFence = { trackerId: string; leaseToken: string };

/**
 * The tracker's bookkeeping after a run, as the fencing sub-statement of the run's ONE final write (the
 * refresh composes it with the run record, the usage ledger and the state stamp in a single statement;
 * each table's owner supplies its part — docs/design.md §2). `UPDATE … WHERE leaseToken = ours RETURNING id`:
 * no row → another refresh took over and every other part of the statement, which selects FROM this one,
 * writes nothing. It also locks the tracker row for the rest of the transaction.
 *
 * Success: failures reset, lastRunAt, the next run (schedule + jitter, written once, here), lease released.
 */
export function refreshSuccessSql(input: TSuccessInput): Prisma.Sql {
  const health = input.fieldHealth
    ? Prisma.sql`, "fieldHealth" = ${JSON.stringify(input.fieldHealth.health)}::jsonb,
        "attentionReason" = ${input.fieldHealth.attentionReason}`
    : Prisma.empty;
  // Validators ride in this same UPDATE: keeping them costs no statement of its own (docs/design.md §3).
  const validators = input.pageValidators
    ? Prisma.sql`, "pageValidators" = ${JSON.stringify(input.pageValidators)}::jsonb`
    : Prisma.empty;
  return Prisma.sql`UPDATE "Tracker"
    SET ${successSetSql(input.now, successNextRun(input))}${health}${validators}
    WHERE "id" = ${input.trackerId} AND "leaseToken" = ${input.leaseToken}
    RETURNING "id"`;
}

export type TSuccessInput = TFence & {
  scheduleMinutes: number;
  now: Date;
  /** Field health after this run (docs/field-health.md); absent → kept as it was (an unchanged page reading all). */
  fieldHealth?: { health: TFieldHealth; attentionReason: string | null } | null | undefined;
  /** web.scrape's validators of this run's 200 (docs/refresh.md "Conditional requests"); absent → kept as they were. */
  pageValidators?: TPageValidators | undefined;
};

/** What every success writes: failures reset, lastRunAt, the next run, lease released. */
function successSetSql(now: Date | Prisma.Sql, nextRunAt: Date | Prisma.Sql): Prisma.Sql {
  return Prisma.sql`"consecutiveFailures" = 0, "lastError" = NULL, "lastRunAt" = ${now}, "nextRunAt" = ${nextRunAt},
        "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ${now}`;
}

/**
 * One run's success as a row of `refreshSuccessRowsSql`'s source (the claim loop's counted checks, docs/refresh.md
 * "Unchanged checks are counted, not stored"): the same bookkeeping as refreshSuccessSql, as data.
 */
export type TSuccessRow = {
  trackerId: string;
  leaseToken: string;
  now: string;
  nextRunAt: string;
  /** false: field health kept as it was. */
  setHealth: boolean;
  fieldHealth: TFieldHealth | null;
  attentionReason: string | null;
  /** null: kept as they were. */
  pageValidators: TPageValidators | null;
};

/** A success's next run: the schedule from now, with the tracker's jitter (written once, here). */
function successNextRun(input: TSuccessInput): Date {
  return computeNextRunAt({
    trackerId: input.trackerId,
    scheduleMinutes: input.scheduleMinutes,
    after: input.now,
    consecutiveFailures: 0,
  });
}

export function refreshSuccessRow(input: TSuccessInput): TSuccessRow {
  return {
    trackerId: input.trackerId,
    leaseToken: input.leaseToken,
    now: input.now.toISOString(),
    nextRunAt: successNextRun(input).toISOString(),
    setHealth: Boolean(input.fieldHealth),
    fieldHealth: input.fieldHealth?.health ?? null,
    attentionReason: input.fieldHealth?.attentionReason ?? null,
    pageValidators: input.pageValidators ?? null,
  };
}

/** The columns of a TSuccessRow in a `json_to_recordset` source (server/db-cte.ts rowSetSql). */
export const SUCCESS_ROW_COLUMNS = {
  trackerId: "text",
  leaseToken: "text",
  now: "timestamp(3)",
  nextRunAt: "timestamp(3)",
  setHealth: "boolean",
  fieldHealth: "jsonb",
  attentionReason: "text",
  pageValidators: "jsonb",
} as const satisfies Record<keyof TSuccessRow, string>;

/**
 * refreshSuccessSql for many runs in ONE sub-statement: `source` names a CTE of TSuccessRow rows (and a row number
 * `i`), each fenced on its own lease token as refreshSuccessSql is. Returns `i` of each row whose fence held. One
 * UPDATE for a batch instead of one per run: PostgreSQL sets up each UPDATE (the table and its indexes) once
 * (docs/scale.md).
 */
export function refreshSuccessRowsSql(source: string): Prisma.Sql {
  const x = Prisma.raw(`"${source}"`);
  return Prisma.sql`UPDATE "Tracker" AS t
    SET ${successSetSql(Prisma.raw('x."now"'), Prisma.raw('x."nextRunAt"'))},
        "fieldHealth" = CASE WHEN x."setHealth" THEN x."fieldHealth" ELSE t."fieldHealth" END,
        "attentionReason" = CASE WHEN x."setHealth" THEN x."attentionReason" ELSE t."attentionReason" END,
        "pageValidators" = COALESCE(x."pageValidators", t."pageValidators")
    FROM ${x} AS x
    WHERE t."id" = x."trackerId" AND t."leaseToken" = x."leaseToken"
    RETURNING x."i"`;
}

/** Failure: one more consecutive failure, the error, the next run (backoff + jitter), lease released. */
export function refreshFailureSql(
  input: TFence & {
    scheduleMinutes: number;
    now: Date;
    previousFailures: number;
    message: string;
    /** The host answered 429/503 with Retry-After: the backoff is never shorter. */
    notBefore?: Date | null | undefined;
  },
): Prisma.Sql {
  const nextRunAt = computeNextRunAt({
    trackerId: input.trackerId,
    scheduleMinutes: input.scheduleMinutes,
    after: input.now,
    consecutiveFailures: input.previousFailures + 1,
    notBefore: input.notBefore,
  });
  return Prisma.sql`UPDATE "Tracker"
    SET "consecutiveFailures" = "consecutiveFailures" + 1, "lastError" = ${input.message}, "lastRunAt" = ${input.now},
        "nextRunAt" = ${nextRunAt}, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ${input.now}
    WHERE "id" = ${input.trackerId} AND "leaseToken" = ${input.leaseToken}
    RETURNING "id"`;
}

/**
 * Deferred (docs/scheduling.md "Politeness per host"): the host's gate sent no request — the host asked us to wait, or
 * stayed busy with other trackers' calls. Nothing about the tracker was learnt, so failures, the error and lastRunAt
 * stay as they were; the next run is the hold's end (a busy host: a minute on), spread per tracker; lease released.
 */
export function refreshDeferredSql(input: TFence & { now: Date; until: Date | null }): Prisma.Sql {
  const nextRunAt = new Date(retryAfterHold(input.trackerId, input.until ?? input.now) + (input.until ? 0 : MINUTE_MS));
  return Prisma.sql`UPDATE "Tracker"
    SET "nextRunAt" = ${nextRunAt}, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ${input.now}
    WHERE "id" = ${input.trackerId} AND "leaseToken" = ${input.leaseToken}
    RETURNING "id"`;
}

const MINUTE_MS = 60_000;

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
export function refreshSuccessSql(
  input: TFence & {
    scheduleMinutes: number;
    now: Date;
    /** Field health after this run (docs/field-health.md); absent → kept as it was (an unchanged page reading all). */
    fieldHealth?: { health: TFieldHealth; attentionReason: string | null } | null | undefined;
    /** web.scrape's validators of this run's 200 (docs/refresh.md "Conditional requests"); absent → kept as they were. */
    pageValidators?: TPageValidators | undefined;
  },
): Prisma.Sql {
  const nextRunAt = computeNextRunAt({
    trackerId: input.trackerId,
    scheduleMinutes: input.scheduleMinutes,
    after: input.now,
    consecutiveFailures: 0,
  });
  const health = input.fieldHealth
    ? Prisma.sql`, "fieldHealth" = ${JSON.stringify(input.fieldHealth.health)}::jsonb,
        "attentionReason" = ${input.fieldHealth.attentionReason}`
    : Prisma.empty;
  // Validators ride in this same UPDATE: keeping them costs no statement of its own (docs/design.md §3).
  const validators = input.pageValidators
    ? Prisma.sql`, "pageValidators" = ${JSON.stringify(input.pageValidators)}::jsonb`
    : Prisma.empty;
  return Prisma.sql`UPDATE "Tracker"
    SET "consecutiveFailures" = 0, "lastError" = NULL, "lastRunAt" = ${input.now}, "nextRunAt" = ${nextRunAt},
        "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ${input.now}${health}${validators}
    WHERE "id" = ${input.trackerId} AND "leaseToken" = ${input.leaseToken}
    RETURNING "id"`;
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

import { Prisma } from "../../generated/prisma/client";
import type { TFieldHealth } from "./field-health-state";
import { computeNextRunAt } from "./next-run";
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
  input: TFence & { scheduleMinutes: number; now: Date; previousFailures: number; message: string },
): Prisma.Sql {
  const nextRunAt = computeNextRunAt({
    trackerId: input.trackerId,
    scheduleMinutes: input.scheduleMinutes,
    after: input.now,
    consecutiveFailures: input.previousFailures + 1,
  });
  return Prisma.sql`UPDATE "Tracker"
    SET "consecutiveFailures" = "consecutiveFailures" + 1, "lastError" = ${input.message}, "lastRunAt" = ${input.now},
        "nextRunAt" = ${nextRunAt}, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ${input.now}
    WHERE "id" = ${input.trackerId} AND "leaseToken" = ${input.leaseToken}
    RETURNING "id"`;
}

import type { TTx } from "../../db";
import { computeNextRunAt } from "./next-run";

type TFence = { trackerId: string; leaseToken: string };

/**
 * The tracker's bookkeeping after a successful run, inside the run's final transaction: failures
 * reset, lastRunAt, the next run (schedule + jitter, written once, here) and the lease released.
 * Fenced on still holding the lease (and it locks the row for the rest of the transaction); false →
 * another refresh took over, the caller rolls back.
 */
export async function recordRefreshSuccess(
  tx: TTx,
  input: TFence & { scheduleMinutes: number; now: Date },
): Promise<boolean> {
  const { count } = await tx.tracker.updateMany({
    where: { id: input.trackerId, leaseToken: input.leaseToken },
    data: {
      consecutiveFailures: 0,
      lastError: null,
      lastRunAt: input.now,
      nextRunAt: computeNextRunAt({
        trackerId: input.trackerId,
        scheduleMinutes: input.scheduleMinutes,
        after: input.now,
        consecutiveFailures: 0,
      }),
      leaseToken: null,
      leaseExpiresAt: null,
    },
  });
  return count === 1;
}

/**
 * The tracker's bookkeeping after a failed run: one more consecutive failure, the error, the next run
 * (backoff + jitter) and the lease released. Only the lease holder writes; false → it had lost the lease.
 */
export async function recordRefreshFailure(
  tx: TTx,
  input: TFence & { scheduleMinutes: number; now: Date; previousFailures: number; message: string },
): Promise<boolean> {
  const { count } = await tx.tracker.updateMany({
    where: { id: input.trackerId, leaseToken: input.leaseToken },
    data: {
      consecutiveFailures: { increment: 1 },
      lastError: input.message,
      lastRunAt: input.now,
      nextRunAt: computeNextRunAt({
        trackerId: input.trackerId,
        scheduleMinutes: input.scheduleMinutes,
        after: input.now,
        consecutiveFailures: input.previousFailures + 1,
      }),
      leaseToken: null,
      leaseExpiresAt: null,
    },
  });
  return count === 1;
}

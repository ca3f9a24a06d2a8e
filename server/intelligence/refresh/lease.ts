import type { TDb, TTx } from "../../db";

/**
 * One refresh in flight per tracker, across processes: the lease is taken by a single conditional
 * UPDATE (free or expired), so exactly one of any number of concurrent callers wins.
 * An expired lease means its holder crashed or hung; taking it over is safe because the holder's
 * final write is fenced on still holding the lease (see `holdsLease`).
 */
export async function acquireLease(
  db: TDb,
  trackerId: string,
  leaseToken: string,
  now: Date,
  leaseMs: number,
): Promise<boolean> {
  const { count } = await db.tracker.updateMany({
    where: { id: trackerId, OR: [{ leaseToken: null }, { leaseExpiresAt: null }, { leaseExpiresAt: { lt: now } }] },
    data: { leaseToken: leaseToken, leaseExpiresAt: new Date(now.getTime() + leaseMs) },
  });
  return count === 1;
}

/** Fencing check inside the final transaction: extends the lease and tells whether we still hold it. */
export async function holdsLease(
  tx: TTx,
  trackerId: string,
  leaseToken: string,
  now: Date,
  leaseMs: number,
): Promise<boolean> {
  const { count } = await tx.tracker.updateMany({
    where: { id: trackerId, leaseToken: leaseToken },
    data: { leaseExpiresAt: new Date(now.getTime() + leaseMs) },
  });
  return count === 1;
}

/** Runs that were `running` when their lease was taken over did not finish: say so instead of leaving them running. */
export async function markInterruptedRuns(db: TDb, trackerId: string, exceptRunId: string, now: Date): Promise<void> {
  await db.refreshRun.updateMany({
    where: { trackerId, status: "running", id: { not: exceptRunId } },
    data: {
      status: "failed",
      finishedAt: now,
      outcome: "interrupted",
      summary: "interrupted: the process running it stopped before it finished",
      error: { code: "INTERRUPTED", message: "The refresh was interrupted before it finished.", retryable: true },
    },
  });
}

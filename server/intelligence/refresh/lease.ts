import type { TDb } from "../../db";

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

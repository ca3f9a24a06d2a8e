import type { TDb, TTx } from "../db";
import { AppError } from "../errors";

/**
 * The person's tracker id, or NOT_FOUND — another person's tracker reads exactly like a missing one. A read only:
 * Tracker rows are written by intelligence/tracker-store, which sits above this room.
 */
export async function assertOwnedTracker(db: TDb | TTx, input: { userId: string; trackerId: string }): Promise<void> {
  const found = await db.tracker.findFirst({
    where: { id: input.trackerId, userId: input.userId },
    select: { id: true },
  });
  if (!found) throw new AppError("NOT_FOUND", "Tracker not found.");
}

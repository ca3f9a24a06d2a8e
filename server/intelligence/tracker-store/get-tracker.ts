import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import type { Tracker } from "../../generated/prisma/client";

/**
 * The user's tracker. Another user's tracker is NOT_FOUND, exactly like a missing one, so ids of
 * other people's trackers cannot be probed.
 */
export async function getTracker(db: TDb | TTx, input: { userId: string; trackerId: string }): Promise<Tracker> {
  const tracker = await db.tracker.findFirst({ where: { id: input.trackerId, userId: input.userId } });
  if (!tracker) throw new AppError("NOT_FOUND", "Tracker not found.");
  return tracker;
}

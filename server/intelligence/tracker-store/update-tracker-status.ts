import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import type { Tracker, TrackerStatus } from "../../generated/prisma/client";

/**
 * Moves the tracker from the status it was read with to another one: a compare-and-set, so a
 * concurrent change yields CONFLICT instead of an unchecked transition. Which transitions are allowed
 * is the caller's policy (server/trackers setTrackerStatus; lockDefinition activates drafts).
 */
export async function updateTrackerStatus(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; from: TrackerStatus; to: TrackerStatus },
): Promise<Tracker> {
  const { count } = await db.tracker.updateMany({
    where: { id: input.trackerId, userId: input.userId, status: input.from },
    data: { status: input.to },
  });
  if (count !== 1) throw new AppError("CONFLICT", "The tracker changed meanwhile; reload it and try again.");
  return db.tracker.findUniqueOrThrow({ where: { id: input.trackerId } });
}

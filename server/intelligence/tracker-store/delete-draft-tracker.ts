import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";

/**
 * Deletes one of the user's draft trackers (never locked), with everything that hangs off it — its draft definition
 * and its setup conversation go by the schema's ON DELETE CASCADE. Conditional on still being an unlocked draft of
 * this user, so a lock that lands first wins and this answers CONFLICT instead of deleting an active tracker.
 * Whether the person may discard is the caller's policy (server/trackers discardDraft).
 */
export async function deleteDraftTracker(db: TDb | TTx, input: { userId: string; trackerId: string }): Promise<void> {
  const { count } = await db.tracker.deleteMany({
    where: { id: input.trackerId, userId: input.userId, status: "draft", lockedVersion: null },
  });
  if (count !== 1) throw new AppError("CONFLICT", "The tracker changed meanwhile; reload it and try again.");
}

/**
 * Deletes every draft tracker (never locked) untouched since `untouchedSince`: neither the tracker row nor its setup
 * conversation (every message and card edit bumps it) changed after that instant. One statement, so a draft
 * resumed meanwhile is kept. Returns how many went.
 */
export async function deleteStaleDraftTrackers(db: TDb | TTx, input: { untouchedSince: Date }): Promise<number> {
  const { count } = await db.tracker.deleteMany({
    where: {
      status: "draft",
      lockedVersion: null,
      updatedAt: { lte: input.untouchedSince },
      OR: [{ setup: { is: null } }, { setup: { is: { updatedAt: { lte: input.untouchedSince } } } }],
    },
  });
  return count;
}

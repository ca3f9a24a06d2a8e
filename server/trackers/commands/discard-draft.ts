import type { TDb } from "../../db";
import { AppError } from "../../errors";
import { deleteDraftTracker, getTracker } from "../../intelligence/tracker-store";

/**
 * Discard from the trackers list: deletes the user's draft tracker and its setup conversation. Another person's
 * tracker is NOT_FOUND like a missing one (docs/design.md §9); a tracker that was ever locked is archived, not discarded,
 * because its timeline is worth keeping.
 */
export async function discardDraft(
  db: TDb,
  input: { userId: string; trackerId: string },
): Promise<{ trackerId: string }> {
  const tracker = await getTracker(db, input);
  if (tracker.status !== "draft" || tracker.lockedVersion !== null) {
    throw new AppError("PRECONDITION_FAILED", "Only a draft can be discarded; archive this tracker instead.", {
      details: { status: tracker.status },
    });
  }
  await deleteDraftTracker(db, { userId: input.userId, trackerId: tracker.id });
  return { trackerId: tracker.id };
}

import type { TDb } from "../../db";
import { deleteUnboundSetupSession, getSetupSession, setSetupStatus } from "../../intelligence/setup";
import { getTracker } from "../../intelligence/tracker-store";
import { discardDraft } from "./discard-draft";

export type TDiscardedSetup = { sessionId: string; outcome: "deleted" | "closed" };

/**
 * Discard from the unfinished-setups list (docs/trackers.md, "Unfinished setups"): a conversation that never bound a
 * page is deleted with its messages; a new tracker's draft goes with its conversation (discardDraft); an edit of a live
 * tracker is only closed — the tracker and its locked versions are untouched, and the unlocked draft stays for the next
 * "Edit definition". Another person's conversation is NOT_FOUND like a missing one.
 */
export async function discardUnfinishedSetup(
  db: TDb,
  input: { userId: string; sessionId: string },
): Promise<TDiscardedSetup> {
  const session = await getSetupSession(db, input);
  if (!session.trackerId) {
    await deleteUnboundSetupSession(db, input);
    return { sessionId: session.id, outcome: "deleted" };
  }
  const tracker = await getTracker(db, { userId: input.userId, trackerId: session.trackerId });
  if (tracker.lockedVersion === null) {
    await discardDraft(db, { userId: input.userId, trackerId: tracker.id });
    return { sessionId: session.id, outcome: "deleted" };
  }
  await setSetupStatus(db, { ...input, status: "abandoned" });
  return { sessionId: session.id, outcome: "closed" };
}

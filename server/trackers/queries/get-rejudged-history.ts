import type { TRejudgedHistory } from "@/contracts/rejudged";
import type { TDb } from "../../db";
import { getTracker } from "../../intelligence/tracker-store";
import { listRejudgedChanges } from "../../timeline";

/** The tracker page's "re-judged under vN" history (docs/replay.md, "Lock with history"). Owner-checked. */
export async function getRejudgedHistory(
  db: TDb,
  input: { userId: string; trackerId: string },
): Promise<TRejudgedHistory> {
  const tracker = await getTracker(db, input);
  return listRejudgedChanges(db, tracker.id);
}

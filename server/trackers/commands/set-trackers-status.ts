import type { TDb } from "../../db";
import { isAppError } from "../../errors";
import { setTrackerStatus } from "./set-tracker-status";

/**
 * Bulk pause, resume or archive from the trackers list: each tracker on its own (setTrackerStatus's rules and
 * owner check), reporting the ones refused; another person's id is refused exactly like one that does not exist.
 */
export async function setTrackersStatus(
  db: TDb,
  input: { userId: string; trackerIds: string[]; status: "active" | "paused" | "archived" },
): Promise<{ updated: string[]; refused: { trackerId: string; message: string }[] }> {
  const updated: string[] = [];
  const refused: { trackerId: string; message: string }[] = [];
  for (const trackerId of input.trackerIds) {
    try {
      await setTrackerStatus(db, { userId: input.userId, trackerId, status: input.status });
      updated.push(trackerId);
    } catch (error) {
      if (!isAppError(error)) throw error;
      refused.push({ trackerId, message: error.message });
    }
  }
  return { updated, refused };
}

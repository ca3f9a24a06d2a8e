import type { TDb } from "../../db";
import { isAppError } from "../../errors";
import { setTrackerStatus } from "./set-tracker-status";

/** Bulk pause/resume from the trackers list: each tracker on its own, reporting the ones refused. */
export async function setTrackersStatus(
  db: TDb,
  input: { userId: string; trackerIds: string[]; status: "active" | "paused" },
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

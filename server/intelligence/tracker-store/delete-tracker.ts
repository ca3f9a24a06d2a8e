import type { TDb, TTx } from "../../db";

/**
 * Removes a tracker that never became usable (createActiveTracker's rollback when its definition
 * could not be saved or locked). Best effort: a tracker already gone is fine.
 */
export async function deleteTracker(db: TDb | TTx, trackerId: string): Promise<void> {
  await db.tracker.deleteMany({ where: { id: trackerId } });
}

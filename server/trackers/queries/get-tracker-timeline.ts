import type { TDb, TTx } from "../../db";
import { getTracker } from "../../intelligence/tracker-store";
import { queryTimeline, type TTimelinePage } from "../../timeline";

/**
 * A page of the user's tracker's timeline, newest first, within [from, to). Ownership first (another
 * user's tracker is NOT_FOUND); the timeline itself is the state layer and does not check it.
 */
export async function getTrackerTimeline(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; from?: Date; to?: Date; cursor?: string; limit?: number },
): Promise<TTimelinePage> {
  const tracker = await getTracker(db, input);
  return queryTimeline(db, {
    trackerId: tracker.id,
    ...(input.limit !== undefined ? { limit: input.limit } : {}),
    ...(input.cursor ? { cursor: input.cursor } : {}),
    ...(input.from ? { from: input.from } : {}),
    ...(input.to ? { to: input.to } : {}),
  });
}

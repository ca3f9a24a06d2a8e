import type { TDb, TTx } from "../../db";
import type { Tracker } from "../../generated/prisma/client";

/** Stores a new schedule and the next run computed for it (server/trackers setTrackerSchedule decides both). */
export async function updateTrackerSchedule(
  db: TDb | TTx,
  input: { trackerId: string; scheduleMinutes: number; nextRunAt: Date | null },
): Promise<Tracker> {
  return db.tracker.update({
    where: { id: input.trackerId },
    data: { scheduleMinutes: input.scheduleMinutes, nextRunAt: input.nextRunAt },
  });
}

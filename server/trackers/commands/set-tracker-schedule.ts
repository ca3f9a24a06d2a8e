import { z } from "zod";
import { SCHEDULE_OPTIONS } from "@/contracts/schedule";
import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import { publish } from "../../events";
import type { Tracker } from "../../generated/prisma/client";
import { computeNextRunAt, getTracker, updateTrackerSchedule } from "../../intelligence/tracker-store";

export const ZScheduleMinutesSchema = z
  .number()
  .int()
  .refine((m) => SCHEDULE_OPTIONS.some((o) => o.minutes === m), {
    message: `Choose one of the schedules: ${SCHEDULE_OPTIONS.map((o) => o.minutes).join(", ")} minutes.`,
  });

/**
 * Changes how often the user's tracker refreshes. The next run moves earlier if the new schedule
 * says so (hourly → every 15 min takes effect now), never later than it already was.
 */
export async function setTrackerSchedule(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; scheduleMinutes: number },
  now: Date = new Date(),
): Promise<Tracker> {
  const parsed = ZScheduleMinutesSchema.safeParse(input.scheduleMinutes);
  if (!parsed.success) throw new AppError("BAD_REQUEST", parsed.error.issues[0]?.message ?? "Invalid schedule.");
  const tracker = await getTracker(db, input);
  if (tracker.status === "archived") throw new AppError("PRECONDITION_FAILED", "This tracker is archived.");
  // What the last run would have set under the new schedule (same rule as the refresh: schedule or backoff, + jitter).
  const candidate = computeNextRunAt({
    trackerId: tracker.id,
    scheduleMinutes: parsed.data,
    after: tracker.lastRunAt ?? now,
    consecutiveFailures: tracker.consecutiveFailures,
  });
  const nextRunAt =
    tracker.nextRunAt && tracker.nextRunAt.getTime() < candidate.getTime() ? tracker.nextRunAt : candidate;
  const updated = await updateTrackerSchedule(db, { trackerId: tracker.id, scheduleMinutes: parsed.data, nextRunAt });
  // Its open pages show the new schedule and next run (docs/design.md §2: news travels as events).
  await publish(db, "tracker.changed", { userId: input.userId, trackerId: tracker.id, materiality: null });
  return updated;
}

import { SCHEDULE_OPTIONS } from "@/contracts/schedule";
import type { TDb } from "../../db";
import { AppError } from "../../errors";
import { computeNextRunAt, getTracker, updateTrackerSchedule } from "../tracker-store";
import { getSetupSession } from "./session";

/**
 * Sets how often the session's tracker checks, from a setup turn ("check every hour"). A draft is not
 * scheduled yet — locking gives it its first run — so only the schedule changes; a tracker already running
 * (an edit session) gets the rule of server/trackers setTrackerSchedule: its next run moves earlier if the
 * new schedule says so, never later.
 */
export async function setSetupSchedule(
  db: TDb,
  input: { userId: string; sessionId: string; scheduleMinutes: number },
  now: Date = new Date(),
): Promise<void> {
  if (!SCHEDULE_OPTIONS.some((o) => o.minutes === input.scheduleMinutes)) {
    throw new AppError(
      "BAD_REQUEST",
      `Choose one of the schedules: ${SCHEDULE_OPTIONS.map((o) => o.minutes).join(", ")} minutes.`,
    );
  }
  const session = await getSetupSession(db, input);
  if (!session.trackerId) throw new AppError("PRECONDITION_FAILED", "Bind a page or place before setting a schedule.");
  const tracker = await getTracker(db, { userId: input.userId, trackerId: session.trackerId });
  if (tracker.status === "archived") throw new AppError("PRECONDITION_FAILED", "This tracker is archived.");
  let nextRunAt = tracker.nextRunAt;
  if (tracker.status !== "draft") {
    const candidate = computeNextRunAt({
      trackerId: tracker.id,
      scheduleMinutes: input.scheduleMinutes,
      after: tracker.lastRunAt ?? now,
      consecutiveFailures: tracker.consecutiveFailures,
    });
    if (!nextRunAt || candidate.getTime() < nextRunAt.getTime()) nextRunAt = candidate;
  }
  await updateTrackerSchedule(db, { trackerId: tracker.id, scheduleMinutes: input.scheduleMinutes, nextRunAt });
}

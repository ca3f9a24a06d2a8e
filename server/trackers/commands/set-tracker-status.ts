import { z } from "zod";
import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import { publish } from "../../events";
import type { Tracker, TrackerStatus } from "../../generated/prisma/client";
import { getTracker, updateTrackerStatus } from "../../intelligence/tracker-store";

const ZStatusSchema = z.enum(["draft", "active", "paused", "archived"]);

/** Why a transition is refused, or null when allowed. Same status → allowed (no-op). */
function refusal(from: TrackerStatus, to: TrackerStatus): string | null {
  if (from === to) return null;
  if (to === "archived") return null;
  if (from === "archived") return "An archived tracker cannot be reactivated.";
  if (from === "draft" && to === "active") return "Lock the definition to activate this tracker.";
  if (from === "draft") return "A draft tracker can only be locked or archived.";
  if (to === "draft") return "A tracker cannot go back to draft; edit its definition instead.";
  return null; // active ↔ paused
}

/**
 * Pauses, resumes or archives the user's tracker. Allowed: active ↔ paused, any → archived (final).
 * A draft becomes active only through lockDefinition. The store's update is conditional on the status
 * it was read with, so a concurrent change yields CONFLICT instead of an unchecked transition.
 */
export async function setTrackerStatus(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; status: TrackerStatus },
): Promise<Tracker> {
  const status = ZStatusSchema.safeParse(input.status);
  if (!status.success) throw new AppError("BAD_REQUEST", `Unknown tracker status "${String(input.status)}".`);
  const tracker = await getTracker(db, input);
  const to = status.data;
  if (tracker.status === to) return tracker;
  const why = refusal(tracker.status, to);
  if (why) throw new AppError("PRECONDITION_FAILED", why, { details: { from: tracker.status, to } });
  const updated = await updateTrackerStatus(db, {
    userId: input.userId,
    trackerId: tracker.id,
    from: tracker.status,
    to,
  });
  // Open pages of this tracker (and the feed) follow the move, wherever it was made (another tab, the API).
  await publish(db, "tracker.changed", { userId: input.userId, trackerId: tracker.id, materiality: null });
  return updated;
}

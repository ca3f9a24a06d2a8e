import type { TDb } from "../db";
import { refreshTracker, type TRefreshOptions, type TRefreshResult } from "../intelligence/refresh";
import { getTracker } from "../intelligence/tracker-store";

/**
 * A person's (UI "Refresh now") or API client's refresh of their own tracker: the ownership check,
 * then the same refreshTracker the scheduler runs. Another user's tracker is NOT_FOUND.
 */
export async function refreshTrackerNow(
  db: TDb,
  input: { userId: string; trackerId: string; trigger: "manual" | "api"; idempotencyKey?: string },
  seams: Omit<TRefreshOptions, "trigger" | "idempotencyKey"> = {},
): Promise<TRefreshResult> {
  const tracker = await getTracker(db, input);
  return refreshTracker(db, tracker.id, {
    ...seams,
    trigger: input.trigger,
    ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
  });
}

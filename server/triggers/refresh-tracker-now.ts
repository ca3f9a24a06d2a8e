import type { TDb } from "../db";
import { detachedDefer, type TDefer } from "../defer";
import { queueBackgroundEnhancement } from "../feed/background";
import { refreshTracker, type TRefreshOptions, type TRefreshResult } from "../intelligence/refresh";
import { getTracker } from "../intelligence/tracker-store";
import { kickNotifications } from "../notifications";
import { enforceRateLimit } from "../usage";
import { recordedChange, wakesNotifications } from "./run-due-refreshes";

/**
 * A person's (UI "Refresh now") or API client's refresh of their own tracker: the ownership check, the per-user
 * rate limit (docs/design.md §9: TOO_MANY_REQUESTS with retryAfterSeconds; UI and API refreshes share one count), then the
 * same refreshTracker the scheduler runs. Another user's tracker is NOT_FOUND. A replay — the idempotency key of
 * a run that exists (a client's retry, a stream's reconnect) — answers from that run and is not counted.
 */
export async function refreshTrackerNow(
  db: TDb,
  input: {
    userId: string;
    trackerId: string;
    trigger: "manual" | "api";
    idempotencyKey?: string;
    /** Where the background enhancement after a recorded change runs (default: detached and tracked). */
    defer?: TDefer;
  },
  seams: Omit<TRefreshOptions, "trigger" | "idempotencyKey"> = {},
): Promise<TRefreshResult> {
  const tracker = await getTracker(db, input);
  const replay =
    input.idempotencyKey !== undefined &&
    (await db.refreshRun.count({ where: { trackerId: tracker.id, idempotencyKey: input.idempotencyKey } })) > 0;
  if (!replay) await enforceRateLimit(db, { userId: input.userId, action: "refresh" });
  const result = await refreshTracker(db, tracker.id, {
    ...seams,
    trigger: input.trigger,
    ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
  });
  // A recorded change moves the owner's briefing even if no feed page is open (docs/design.md §6).
  if (recordedChange(result)) {
    (input.defer ?? detachedDefer)(() => queueBackgroundEnhancement(db, [input.userId]));
  }
  // Its notice goes out now, not at the next scheduler pass (docs/scheduling.md "Notifications").
  if (wakesNotifications(result)) (input.defer ?? detachedDefer)(() => kickNotifications(db));
  return result;
}

import type { TDb } from "../db";
import { detachedDefer, type TDefer } from "../defer";
import { queueBackgroundEnhancement } from "../feed/background";
import { refreshTracker, type TRefreshOptions, type TRefreshResult } from "../intelligence/refresh";
import { kickNotifications } from "../notifications";
import { rateLimitsFromEnv } from "../usage";
import { recordedChange, wakesNotifications } from "./run-due-refreshes";

/**
 * A person's (UI "Refresh now") or API client's refresh of their own tracker: the same refreshTracker the scheduler
 * runs, with the ownership check and the per-user rate limit (docs/design.md §9: TOO_MANY_REQUESTS with
 * retryAfterSeconds; UI and API refreshes share one count) inside its one lease statement (leaseAndLoad's `caller`),
 * so an unchanged page costs the lease and the final write, as a scheduled refresh does. Another user's tracker is
 * NOT_FOUND, with nothing leased or counted. A replay — the idempotency key of a run that exists (a client's retry, a
 * stream's reconnect) — answers from that run and is not counted; a refused call takes no lease.
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
  seams: Omit<TRefreshOptions, "trigger" | "idempotencyKey" | "caller" | "claimed"> = {},
): Promise<TRefreshResult> {
  // Never a claimed tracker here: the lease statement is what checks the owner.
  const { claimed: _claimed, caller: _caller, ...rest } = seams as Partial<TRefreshOptions>;
  const result = await refreshTracker(db, input.trackerId, {
    ...rest,
    trigger: input.trigger,
    ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
    caller: { userId: input.userId, rateLimit: { action: "refresh", ...rateLimitsFromEnv().refresh } },
  });
  // A recorded change moves the owner's briefing even if no feed page is open (docs/design.md §6).
  if (recordedChange(result)) {
    (input.defer ?? detachedDefer)(() => queueBackgroundEnhancement(db, [input.userId]));
  }
  // Its notice goes out now, not at the next scheduler pass (docs/scheduling.md "Notifications").
  if (wakesNotifications(result)) (input.defer ?? detachedDefer)(() => kickNotifications(db));
  return result;
}

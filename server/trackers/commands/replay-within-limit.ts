import type { TDb } from "../../db";
import { enforceRateLimit } from "../../usage";
import { replayTracker, type TReplayObserver, type TReplayTrackerInput } from "./replay-tracker";

/**
 * The replay every surface calls (tRPC, REST, the page's stream): a full replay is a costly call, rate-limited per
 * person (docs/design.md §9: RATE_LIMIT_REPLAYS, a 429 with Retry-After before anything is read); a plan only counts
 * and is free. Then the one engine call, replayTracker.
 */
export async function replayTrackerWithinLimit(db: TDb, input: TReplayTrackerInput, observer: TReplayObserver = {}) {
  if (!input.planOnly) await enforceRateLimit(db, { userId: input.userId, action: "replay" });
  return replayTracker(db, input, observer);
}

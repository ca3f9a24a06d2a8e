import { getModel } from "../../ai";
import type { TDb } from "../../db";
import { detachedDefer } from "../../defer";
import { isRecentlyActive, requestEnhancement, type TEnhanceOutcome } from "../../enhancement/enhancement-manager";
import { getEnv } from "../../env";
import { logger } from "../../logger";
import { getUserSettings } from "../../settings/user-settings";
import { buildFeed } from "../build-feed";

/**
 * The slow path without a page load (docs/design.md §6): rebuild one person's feed as a load
 * would and hand it to the enhancement manager — the same hash gate, lease, pending follow-up, backoff and budget
 * as a load — so the briefing is ready when they open the app, and open pages reload on its `feed.changed`.
 * Cheap refusals come first: rules mode and people inactive for over 2 hours cost one read, no source fetch.
 * Resolves with what happened; never throws.
 */
export async function enhanceInBackground(
  db: TDb,
  userId: string,
  /** `clock`: what each model call reads when it is made (default: `now` moving on with the process's clock). */
  opts: { now?: Date; clock?: () => Date } = {},
): Promise<TEnhanceOutcome> {
  const now = opts.now ?? new Date();
  // Before the settings are read: a page load that reads them later (after an edit) wins the debounce over this.
  const inputsReadAt = performance.now();
  try {
    if (!getModel("enhancer")) return "rules";
    const settings = await getUserSettings(db, userId);
    if (!isRecentlyActive(settings.lastActiveAt, now)) return "inactive";
    // A due calendar refetch runs detached; its own feed event brings it to open pages and the next sweep.
    const { processed } = await buildFeed(db, userId, settings, { now, defer: detachedDefer });
    return await requestEnhancement(db, userId, processed, settings.memory, {
      now,
      debounceMs: getEnv().FEED_ENHANCE_DEBOUNCE_MS,
      inputsReadAt,
      lastActiveAt: settings.lastActiveAt,
      ...(opts.clock ? { clock: opts.clock } : {}),
    });
  } catch (error) {
    logger.warn("background feed enhancement failed", { userId, error });
    return "failed";
  }
}

import type { TFeed } from "@/contracts/feed-item";
import type { TDb } from "../db";
import { detachedDefer, type TDefer } from "../defer";
import { requestEnhancement, type TEnhanceOutcome } from "../enhancement/enhancement-manager";
import { getEnv } from "../env";
import { recordFeedView } from "../settings/feed-seen";
import { getUserSettingsAndSeen } from "../settings/user-settings";
import { buildFeed } from "./build-feed";
import type { TCalendarRefreshOutcome } from "./calendar/calendar-cache";

export { assembleFeed } from "./build-feed";

export type TGetFeedOptions = {
  now?: Date;
  /** The page is being viewed: record activity (enhancement runs only for active users). */
  touch?: boolean;
  /** Start the background enhancement (default true). `onEnhanced` sees its outcome (tests). */
  enhance?: boolean;
  onEnhanced?: (outcome: TEnhanceOutcome) => void;
  /**
   * Runs background work that must outlive this call (enhancement, calendar refetch). The API layer
   * passes one built on Next's `after()`; the default runs it detached and tracked (server/defer.ts).
   */
  defer?: TDefer;
  /** Refetch the calendar even if the cached copy is fresh (the Refresh button). */
  refreshCalendar?: boolean;
  onCalendarRefreshed?: (outcome: TCalendarRefreshOutcome) => void;
  /**
   * The browser's zone from its cookie (server/settings/time-zone.ts): the agenda's days and times when Settings has
   * no zone (docs/feed.md, "Time zone"). Background rebuilds have no request, and use Settings' or UTC.
   */
  browserTimeZone?: string | null;
};

/**
 * Fast path: sources → post-processors → merge the LAST cached enhancement → return. Nothing here waits
 * on a remote host but the weather; the calendar is read from its cache. The slow path (model call,
 * calendar refetch) is handed to `defer` and pushes a feed event when done.
 */
export async function getFeed(db: TDb, userId: string, opts: TGetFeedOptions = {}): Promise<TFeed> {
  const now = opts.now ?? new Date();
  // Before anything is read: a slower build that began earlier must not supersede this one's enhancement.
  const inputsReadAt = performance.now();
  const env = getEnv();
  const defer = opts.defer ?? detachedDefer;
  // The person's row is read once: settings, the "new since" threshold and their last activity, passed down.
  const { settings, feedSeenBefore } = await getUserSettingsAndSeen(db, userId);
  // A view records itself (and the activity it is); a load that is not a view marks what the page would show.
  const seen = opts.touch
    ? await recordFeedView(db, userId, { now, visitGapMs: env.FEED_VISIT_GAP_MS })
    : { since: feedSeenBefore };
  const { processed, items, errors, cached } = await buildFeed(db, userId, settings, {
    now,
    seenSince: seen.since,
    defer,
    refreshCalendar: opts.refreshCalendar,
    onCalendarRefreshed: opts.onCalendarRefreshed,
    browserTimeZone: opts.browserTimeZone ?? null,
  });

  if (opts.enhance !== false) {
    defer(async () => {
      const outcome = await requestEnhancement(db, userId, processed, settings.memory, {
        now,
        debounceMs: env.FEED_ENHANCE_DEBOUNCE_MS,
        inputsReadAt,
        // A view is activity now (recordFeedView wrote it); otherwise what the read found.
        lastActiveAt: opts.touch ? now : settings.lastActiveAt,
      });
      opts.onEnhanced?.(outcome);
    });
  }
  return {
    items,
    errors,
    generatedAt: now,
    seenSince: seen.since,
    enhancement: { state: cached.result ? "cached" : "none", inputHash: cached.inputHash },
  };
}

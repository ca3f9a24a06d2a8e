import { validateFeedSpec } from "@/contracts/feed-catalog";
import type { TFeed, TFeedItem } from "@/contracts/feed-item";
import { capabilityConfigFromEnv } from "@/server/capabilities";
import type { TDb } from "@/server/db";
import { detachedDefer, type TDefer } from "@/server/defer";
import {
  getCachedEnhancement,
  requestEnhancement,
  type TEnhanceOutcome,
} from "@/server/enhancement/enhancement-manager";
import type { TEnhancementResult } from "@/server/enhancement/schema";
import { getEnv } from "@/server/env";
import { logger } from "@/server/logger";
import { readFeedSeen, recordFeedView } from "@/server/settings/feed-seen";
import { getUserSettings, touchLastActive } from "@/server/settings/user-settings";
import type { TCalendarRefreshOutcome } from "./calendar/calendar-cache";
import { FeedEngine } from "./feed-engine";
import { mergeEnhancement } from "./merge-enhancement";
import { memoryWords, postProcess, type TPostContext } from "./post-process";
import { calendarSource } from "./sources/calendar-source";
import { locationSource } from "./sources/location-source";
import { trackersSource } from "./sources/trackers-source";
import { weatherSource } from "./sources/weather-source";

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
};

/** Items with specs the catalog rejects keep their data but lose the UI (the client shows a plain card). */
function checkSpecs(items: TFeedItem[]): TFeedItem[] {
  return items.map((item) => {
    if (!item.ui) return item;
    const check = validateFeedSpec(item.ui);
    if (check.ok) return item;
    logger.warn("feed item has an invalid UI spec; showing a plain card", { itemId: item.id, problem: check.problem });
    return { ...item, ui: undefined };
  });
}

/**
 * The in-process part of a feed load (DESIGN §6 fast path): the rule-based post-processors, the catalog check
 * of every card, the cached enhancement merged, ordered. No I/O; `npm run bench -- feed` times this function.
 * `processed` (before the merge) is what the slow path enhances.
 */
export function assembleFeed(
  raw: TFeedItem[],
  cached: TEnhancementResult | null,
  ctx: TPostContext,
): { processed: TFeedItem[]; items: TFeedItem[] } {
  const processed = checkSpecs(postProcess(raw, ctx));
  return { processed, items: mergeEnhancement(processed, cached, ctx.now) };
}

/**
 * Fast path: sources → post-processors → merge the LAST cached enhancement → return. Nothing here waits
 * on a remote host but the weather; the calendar is read from its cache. The slow path (model call,
 * calendar refetch) is handed to `defer` and pushes a feed event when done.
 */
export async function getFeed(db: TDb, userId: string, opts: TGetFeedOptions = {}): Promise<TFeed> {
  const now = opts.now ?? new Date();
  const env = getEnv();
  const defer = opts.defer ?? detachedDefer;
  if (opts.touch) await touchLastActive(db, userId, now);
  // A view records itself; a load that is not a view (background) marks what the page would show.
  const seen = opts.touch
    ? await recordFeedView(db, userId, { now, visitGapMs: env.FEED_VISIT_GAP_MS })
    : await readFeedSeen(db, userId);
  const settings = await getUserSettings(db, userId);
  const engine = new FeedEngine()
    .register(trackersSource(db, { seenSince: seen.since }))
    .register(locationSource(settings))
    .register(weatherSource({ baseUrl: env.OPEN_METEO_BASE_URL, timeoutMs: env.FETCH_TIMEOUT_MS }))
    .register(
      calendarSource({
        db,
        calendarUrl: settings.calendarUrl,
        timezone: settings.timezone,
        fetchConfig: capabilityConfigFromEnv(env).fetch,
        defer,
        force: opts.refreshCalendar,
        onRefreshed: opts.onCalendarRefreshed,
      }),
    );
  const { items: raw, errors } = await engine.run({ userId, now, env: undefined });
  const cached = await getCachedEnhancement(db, userId);
  const { processed, items } = assembleFeed(raw, cached.result, { now, memoryWords: memoryWords(settings.memory) });

  if (opts.enhance !== false) {
    defer(async () => {
      const outcome = await requestEnhancement(db, userId, processed, settings.memory, {
        now,
        debounceMs: env.FEED_ENHANCE_DEBOUNCE_MS,
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

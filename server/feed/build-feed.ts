import { validateFeedSpec } from "@/contracts/feed-catalog";
import type { TFeedItem, TSourceError } from "@/contracts/feed-item";
import { capabilityConfigFromEnv } from "../capabilities";
import type { TDb } from "../db";
import type { TDefer } from "../defer";
import { getCachedEnhancement } from "../enhancement/enhancement-manager";
import type { TEnhancementResult } from "../enhancement/schema";
import { getEnv } from "../env";
import { logger } from "../logger";
import { resolvePersonTimeZone } from "../settings/time-zone";
import type { TUserSettings } from "../settings/user-settings";
import { calendarForLoad, type TCalendarRefreshOutcome } from "./calendar/calendar-cache";
import { memoOfCard } from "./card-memo";
import { FeedEngine } from "./feed-engine";
import { mergeEnhancement } from "./merge-enhancement";
import { memoryWords, postProcess, type TPostContext } from "./post-process";
import { briefingSource } from "./sources/briefing-source";
import { calendarSource } from "./sources/calendar-source";
import { locationSource } from "./sources/location-source";
import { trackersSource } from "./sources/trackers-source";
import { weatherSource } from "./sources/weather-source";

/**
 * Items with specs the catalog rejects keep their data but lose the UI (the client shows a plain card). A card
 * its builder keyed is checked once per content (card-memo.ts): a repeat load of the same card reuses the verdict.
 */
function checkSpecs(items: TFeedItem[]): TFeedItem[] {
  return items.map((item) => {
    if (!item.ui) return item;
    const memo = memoOfCard(item);
    let problem = memo?.specProblem;
    if (problem === undefined) {
      const check = validateFeedSpec(item.ui);
      problem = check.ok ? null : check.problem;
      if (memo) memo.specProblem = problem;
    }
    if (problem === null) return item;
    logger.warn("feed item has an invalid UI spec; showing a plain card", { itemId: item.id, problem });
    return { ...item, ui: undefined };
  });
}

/**
 * The in-process part of a feed load (docs/design.md §6 fast path): the catalog check of every card, the rule-based
 * post-processors, the cached enhancement merged, ordered. The check and the memory-word match are memoised per
 * card content (card-memo.ts); the rest depends on the load. No I/O; `npm run bench -- feed` times this function.
 * `processed` (before the merge) is what the slow path enhances.
 */
export function assembleFeed(
  raw: TFeedItem[],
  cached: TEnhancementResult | null,
  ctx: TPostContext,
): { processed: TFeedItem[]; items: TFeedItem[] } {
  // The check runs on the cards as their builders made them (a post-processed copy has no memo key).
  const processed = postProcess(checkSpecs(raw), ctx);
  return { processed, items: mergeEnhancement(processed, cached, ctx.now) };
}

export type TBuildFeedOptions = {
  now: Date;
  /** Changes after this are marked "new since you last looked" (UI only; the data the model reads is the same). */
  seenSince?: Date | null;
  /** Where a due calendar refetch runs (server/defer.ts). */
  defer: TDefer;
  /** Refetch the calendar even if the cached copy is fresh (the Refresh button). */
  refreshCalendar?: boolean;
  onCalendarRefreshed?: (outcome: TCalendarRefreshOutcome) => void;
  /**
   * The browser's time zone (its cookie, server/settings/time-zone.ts), used while Settings has none: the feed is
   * read in the person's zone (docs/feed.md, "Time zone").
   */
  browserTimeZone?: string | null;
};

export type TBuiltFeed = {
  /** Post-processed, before the cached enhancement is merged: what the slow path enhances. */
  processed: TFeedItem[];
  /** `processed` with the last cached enhancement merged: what a page shows. */
  items: TFeedItem[];
  errors: TSourceError[];
  cached: Awaited<ReturnType<typeof getCachedEnhancement>>;
};

/**
 * One user's feed without the request around it (docs/design.md §6 fast path): the registered sources in dependency order,
 * the post-processors, the last cached enhancement merged. Shared by a feed load (getFeed) and the background
 * enhancement after a context change (background/), so both enhance the same items.
 */
export async function buildFeed(
  db: TDb,
  userId: string,
  settings: TUserSettings,
  opts: TBuildFeedOptions,
): Promise<TBuiltFeed> {
  const env = getEnv();
  const timeZone = resolvePersonTimeZone(settings.timezone, opts.browserTimeZone);
  const calendar = settings.calendarUrl ? calendarForLoad(db, settings.calendarUrl) : null;
  const engine = new FeedEngine()
    .register(briefingSource({ db, timeZone: timeZone.zone, calendar }))
    .register(trackersSource(db, { seenSince: opts.seenSince ?? null }))
    .register(locationSource(settings))
    .register(
      weatherSource({
        baseUrl: env.OPEN_METEO_BASE_URL,
        timeoutMs: env.FETCH_TIMEOUT_MS,
        timeZone: timeZone.source === "default" ? null : timeZone.zone,
      }),
    )
    .register(
      calendarSource({
        db,
        calendar,
        timeZone,
        fetchConfig: capabilityConfigFromEnv(env).fetch,
        defer: opts.defer,
        force: opts.refreshCalendar,
        onRefreshed: opts.onCalendarRefreshed,
      }),
    );
  const { items: raw, errors } = await engine.run({ userId, now: opts.now, env: undefined });
  const cached = await getCachedEnhancement(db, userId);
  const { processed, items } = assembleFeed(raw, cached.result, {
    now: opts.now,
    memoryWords: memoryWords(settings.memory),
  });
  return { processed, items, errors, cached };
}

import { createHash } from "node:crypto";
import { buildSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import type { TFetchConfig } from "../../capabilities/config";
import type { TDb } from "../../db";
import type { TDefer } from "../../defer";
import {
  CALENDAR_STALE_LIMIT_MS,
  isCalendarRefreshDue,
  readCalendarCache,
  scheduleCalendarRefresh,
  type TCalendarRefreshOutcome,
} from "../calendar/calendar-cache";
import { resolveOccurrenceTime, type TCalendarOccurrence } from "../calendar/parse-calendar";
import { cardKey, keyCard } from "../card-memo";
import type { TFeedSource } from "../feed-engine";
import { calendarSetupItem } from "./setup-items";

const WINDOW_DAYS = 7;
const MAX_EVENTS = 10;
/** An event this close is "imminent" (signals) and `startsSoon` in its data. */
const SOON_HOURS = 2;

export type TCalendarSourceOptions = {
  db: TDb;
  calendarUrl: string | null;
  /** The user's time zone (Settings): floating times and all-day dates are read in it; UTC when unset. */
  timezone: string | null;
  fetchConfig: TFetchConfig;
  /** Where a due refetch runs: after the response (see server/defer.ts). */
  defer: TDefer;
  /** Refetch even if the cached copy is fresh (the Refresh button). */
  force?: boolean;
  /** Tests: the outcome of a refetch this load scheduled. */
  onRefreshed?: (outcome: TCalendarRefreshOutcome) => void;
};

const utcStamp = (d: Date) => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
const dayLabel = (date: Date) =>
  new Intl.DateTimeFormat("en-GB", { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" }).format(date);

function itemId(o: TCalendarOccurrence): string {
  const base = `event:${o.uid.length > 120 ? createHash("sha256").update(o.uid).digest("hex").slice(0, 32) : o.uid}`;
  return o.recurrenceId ? `${base}@${o.recurrenceId}` : base;
}

function loadingItem(now: Date): TFeedItem {
  return {
    id: "calendar:loading",
    sourceId: "calendar",
    type: "calendar-loading",
    timestamp: now,
    data: { state: "loading" },
    signals: { urgency: 0.1, timeRelevance: "ambient" },
    ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, [
      { key: "title", type: "Heading", props: { text: "Calendar" } },
      {
        key: "body",
        type: "Text",
        props: { text: "Loading your calendar… events appear here shortly.", tone: "muted" },
      },
    ]),
  };
}

/**
 * Its content key (card-memo.ts): the occurrence's fields, its resolved times, and the two things `now` changes
 * (whether it starts soon, how near it is) — not `now` itself, so the same event keeps its key between loads.
 */
function eventKey(o: TCalendarOccurrence, start: Date, end: Date | null, soon: boolean, relevance: string): string {
  const parts = [o.uid, o.recurrenceId, o.summary, o.location, o.allDay, o.start, start.getTime(), end?.getTime()];
  return cardKey("calendar-event", [...parts, soon, relevance]);
}

export function eventItem(o: TCalendarOccurrence, start: Date, end: Date | null, now: Date): TFeedItem {
  const hoursAway = (start.getTime() - now.getTime()) / 3_600_000;
  const soon = hoursAway <= SOON_HOURS && !o.allDay;
  const timeRelevance = hoursAway <= SOON_HOURS ? "imminent" : hoursAway <= 24 ? "upcoming" : "ambient";
  // EventRow shows a time; an all-day event shows its day instead.
  const row = o.allDay
    ? [
        { key: "title", type: "Heading", props: { text: o.summary } },
        {
          key: "when",
          type: "Text",
          props: {
            text: `All day · ${dayLabel(new Date(`${o.start}T00:00:00Z`))}${o.location ? ` · ${o.location}` : ""}`,
            tone: "muted",
          },
        },
      ]
    : [
        {
          key: "event",
          type: "EventRow",
          props: {
            title: o.summary,
            start: start.toISOString(),
            end: end?.toISOString() ?? null,
            location: o.location,
          },
        },
      ];
  const item: TFeedItem = {
    id: itemId(o),
    sourceId: "calendar",
    type: "calendar-event",
    timestamp: start,
    data: {
      title: o.summary,
      start: start.toISOString(),
      end: end?.toISOString() ?? null,
      location: o.location,
      allDay: o.allDay,
      ...(o.recurrenceId ? { recurring: true } : {}),
      // Part of the enhancement's input: an event becoming imminent is a context change (docs/design.md §6), so its
      // logistics are written again for "leave now" rather than "tomorrow".
      ...(soon ? { startsSoon: true } : {}),
    },
    signals: { urgency: soon ? 0.7 : 0.4, timeRelevance },
    ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, [
      ...row,
      { key: "context", type: "Slot", props: { name: "context" } },
      { key: "logistics", type: "Slot", props: { name: "logistics" } },
      { key: "weather", type: "Slot", props: { name: "weather" } },
    ]),
    // The slots the design gives a calendar card (docs/feed.md): context, logistics, weather.
    slots: {
      context: {
        description:
          "Background on this event: who or what it is about, and how it connects to the user's decisions (one sentence)",
        content: null,
      },
      logistics: {
        description: "Travel time, what to bring or prepare for this event (one sentence)",
        content: null,
      },
      weather: {
        description: "Weather conditions relevant to this event's time and place (one sentence)",
        content: null,
      },
    },
  };
  return keyCard(item, eventKey(o, start, end, soon, timeRelevance));
}

/**
 * Upcoming events (next 7 days) from the ICS URL in Settings — read from the calendar cache only, so a
 * slow or broken calendar host never slows the feed (docs/design.md §6 fast path). A missing or due copy
 * schedules a background refetch through `defer`; its result reaches open pages as a feed event.
 * First load: a "loading" card. A failed refetch: its error chip, next to the last good copy for a day.
 */
export function calendarSource(opts: TCalendarSourceOptions): TFeedSource {
  return {
    id: "calendar",
    async fetchItems({ userId, now, reportError }) {
      const url = opts.calendarUrl;
      if (!url) return [calendarSetupItem(now)];
      const cached = await readCalendarCache(opts.db, userId, url);
      if (isCalendarRefreshDue(cached, now, opts.force)) {
        scheduleCalendarRefresh(
          opts.db,
          { userId, url, now, fetchConfig: opts.fetchConfig, force: opts.force },
          opts.defer,
          opts.onRefreshed,
        );
      }
      if (!cached || (!cached.occurrences && !cached.error)) return [loadingItem(now)];
      if (cached.error) {
        const fresh = cached.fetchedAt && now.getTime() - cached.fetchedAt.getTime() <= CALENDAR_STALE_LIMIT_MS;
        if (!cached.occurrences || !fresh || !cached.fetchedAt) throw new Error(cached.error);
        reportError(`${cached.error} Showing the copy from ${utcStamp(cached.fetchedAt)}.`);
      }
      const horizon = now.getTime() + WINDOW_DAYS * 86_400_000;
      return (cached.occurrences ?? [])
        .map((o) => {
          const start = resolveOccurrenceTime(o.start, opts.timezone);
          const end = o.end ? resolveOccurrenceTime(o.end, opts.timezone) : null;
          return { o, start, end };
        })
        .filter(
          ({ start, end }) =>
            !Number.isNaN(start.getTime()) && (end ?? start).getTime() >= now.getTime() && start.getTime() <= horizon,
        )
        .sort((a, b) => a.start.getTime() - b.start.getTime())
        .slice(0, MAX_EVENTS)
        .map(({ o, start, end }) => eventItem(o, start, end, now));
    },
  };
}

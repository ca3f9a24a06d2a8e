import { buildSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import type { TFetchConfig } from "../../capabilities/config";
import type { TDb } from "../../db";
import type { TDefer } from "../../defer";
import type { TPersonTimeZone } from "../../settings/time-zone";
import { agendaDayItem } from "../agenda/agenda-card";
import { groupAgenda } from "../agenda/group-agenda";
import { dayKeyOf, stampIn } from "../agenda/zoned-day";
import {
  CALENDAR_STALE_LIMIT_MS,
  isCalendarRefreshDue,
  scheduleCalendarRefresh,
  type TCalendarRefreshOutcome,
  type TLoadCalendar,
} from "../calendar/calendar-cache";
import type { TFeedSource } from "../feed-engine";
import { calendarSetupItem } from "./setup-items";

/** Today and the six days after it. */
const AGENDA_DAYS = 7;
/** Events one day's card lists; the rest are counted ("+3 more"). */
const MAX_EVENTS_PER_DAY = 20;

export type TCalendarSourceOptions = {
  db: TDb;
  /** The calendar in Settings, read once for the whole load (calendarForLoad); null: none set up. */
  calendar: TLoadCalendar | null;
  /**
   * The person's time zone (server/settings/time-zone.ts): the agenda's days begin at its midnight, its times are
   * written in it, and floating times and all-day dates in the file are read in it.
   */
  timeZone: TPersonTimeZone;
  fetchConfig: TFetchConfig;
  /** Where a due refetch runs: after the response (see server/defer.ts). */
  defer: TDefer;
  /** Refetch even if the cached copy is fresh (the Refresh button). */
  force?: boolean;
  /** Tests: the outcome of a refetch this load scheduled. */
  onRefreshed?: (outcome: TCalendarRefreshOutcome) => void;
};

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
 * The next 7 days of the ICS URL in Settings as an agenda, one card per day (docs/feed.md, "Agenda") — read from the
 * calendar cache only, so a slow or broken calendar host never slows the feed (docs/design.md §6 fast path). A
 * missing or due copy schedules a background refetch through `defer`; its result reaches open pages as a feed
 * event. First load: a "loading" card. A failed refetch: its error chip, next to the last good copy for a day.
 */
export function calendarSource(opts: TCalendarSourceOptions): TFeedSource {
  return {
    id: "calendar",
    async fetchItems({ userId, now, reportError }) {
      if (!opts.calendar) return [calendarSetupItem(now)];
      const { url } = opts.calendar;
      const cached = await opts.calendar.read(userId);
      if (isCalendarRefreshDue(cached, now, opts.force)) {
        scheduleCalendarRefresh(
          opts.db,
          { userId, url, now, fetchConfig: opts.fetchConfig, force: opts.force },
          opts.defer,
          opts.onRefreshed,
        );
      }
      if (!cached || (!cached.occurrences && !cached.error)) return [loadingItem(now)];
      const zone = opts.timeZone;
      if (cached.error) {
        const fresh = cached.fetchedAt && now.getTime() - cached.fetchedAt.getTime() <= CALENDAR_STALE_LIMIT_MS;
        if (!cached.occurrences || !fresh || !cached.fetchedAt) throw new Error(cached.error);
        reportError(`${cached.error} Showing the copy from ${stampIn(cached.fetchedAt, zone.zone)}.`);
      }
      const today = dayKeyOf(now, zone.zone);
      const days = groupAgenda(cached.occurrences ?? [], {
        zone: zone.zone,
        now,
        days: AGENDA_DAYS,
        maxPerDay: MAX_EVENTS_PER_DAY,
      });
      // Today always (the weather sits beside it, docs/feed.md "Order"); later days when something is on them.
      return days
        .filter((d) => d.day === today || d.events.length > 0)
        .map((d, i) => agendaDayItem(d, { today, zone, withNote: i === 0 }));
    },
  };
}

import type { TDb } from "../../db";
import { briefingItem } from "../briefing/briefing-card";
import { addDays, briefingZone, dayKeyOf, dayStart } from "../briefing/briefing-day";
import { buildBriefing } from "../briefing/build-briefing";
import { eventsAround, readChangesSince } from "../briefing/read-briefing-inputs";
import type { TLoadCalendar } from "../calendar/calendar-cache";
import type { TFeedSource } from "../feed-engine";

export type TBriefingSourceOptions = {
  db: TDb;
  /**
   * The feed's time zone (server/settings/time-zone.ts: Settings, else the browser's, else UTC), the agenda's too: the
   * card's date, "since yesterday" and "today" are read in it. An unknown name reads as UTC.
   */
  timeZone: string | null;
  /** The calendar in Settings, read once for the whole load (shared with the agenda); null: none set up. */
  calendar: TLoadCalendar | null;
};

/**
 * The feed's top card (docs/feed.md, "The briefing card"): the day, the material changes since yesterday and today's
 * events, in at most two lines by rules, replaced by the model's briefing for the same inputs when there is one.
 */
export function briefingSource(opts: TBriefingSourceOptions): TFeedSource {
  return {
    id: "briefing",
    async fetchItems({ userId, now }) {
      const zone = briefingZone(opts.timeZone);
      const today = dayKeyOf(now, zone);
      const [changes, calendar] = await Promise.all([
        readChangesSince(opts.db, userId, dayStart(addDays(today, -1), zone)),
        opts.calendar?.read(userId) ?? null,
      ]);
      const events = calendar ? eventsAround(calendar, { zone, today, now }) : null;
      return [briefingItem(buildBriefing({ now, zone, changes, events }), now)];
    },
  };
}

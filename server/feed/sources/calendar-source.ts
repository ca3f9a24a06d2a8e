import type { TFetchConfig } from "@/server/capabilities/config";
import { safeFetch } from "@/server/capabilities/web-scrape/safe-fetch";
import { buildSpec } from "../catalog";
import type { TFeedSource } from "../feed-engine";
import type { TFeedItem } from "../feed-item";
import { parseIcs } from "./parse-ics";

const WINDOW_DAYS = 7;
const MAX_EVENTS = 10;

/** Upcoming events (next 7 days) from the ICS URL in settings, fetched with the SSRF-guarded fetch. */
export function calendarSource(calendarUrl: string | null, fetchConfig: TFetchConfig): TFeedSource {
  return {
    id: "calendar",
    async fetchItems({ now }) {
      if (!calendarUrl) return [];
      let text: string;
      try {
        const res = await safeFetch(calendarUrl, fetchConfig, { accept: "text/calendar, text/plain;q=0.8, */*;q=0.5" });
        if (res.status >= 400) throw new Error(`The calendar URL answered HTTP ${res.status}.`);
        text = res.text;
      } catch (error) {
        throw new Error(error instanceof Error ? `Calendar: ${error.message}` : "Could not fetch the calendar.");
      }
      if (!text.includes("BEGIN:VCALENDAR"))
        throw new Error("The calendar URL did not return an iCalendar (.ics) file.");
      const horizon = now.getTime() + WINDOW_DAYS * 86_400_000;
      const upcoming = parseIcs(text)
        .filter((e) => (e.end ?? e.start).getTime() >= now.getTime() && e.start.getTime() <= horizon)
        .sort((a, b) => a.start.getTime() - b.start.getTime())
        .slice(0, MAX_EVENTS);
      return upcoming.map((e): TFeedItem => {
        const hoursAway = (e.start.getTime() - now.getTime()) / 3_600_000;
        return {
          id: `event:${e.uid}`.slice(0, 200),
          sourceId: "calendar",
          type: "calendar-event",
          timestamp: e.start,
          data: {
            title: e.summary,
            start: e.start.toISOString(),
            end: e.end?.toISOString() ?? null,
            location: e.location,
            allDay: e.allDay,
          },
          signals: {
            urgency: hoursAway <= 2 ? 0.7 : 0.4,
            timeRelevance: hoursAway <= 2 ? "imminent" : hoursAway <= 24 ? "upcoming" : "ambient",
          },
          ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, [
            {
              key: "event",
              type: "EventRow",
              props: {
                title: e.summary,
                start: e.start.toISOString(),
                end: e.end?.toISOString() ?? null,
                location: e.location,
              },
            },
            { key: "logistics", type: "Slot", props: { name: "logistics" } },
            { key: "weather", type: "Slot", props: { name: "weather" } },
          ]),
          slots: {
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
      });
    },
  };
}

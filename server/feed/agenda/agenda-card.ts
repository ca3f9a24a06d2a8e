import { buildSpec, type TSpecNode } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import type { TPersonTimeZone } from "../../settings/time-zone";
import { cardKey, keyCard } from "../card-memo";
import type { TAgendaDay, TAgendaEntry } from "./group-agenda";
import { addDays, dayTitle, longDate, type TDayKey } from "./zoned-day";

/** The type of a day's agenda card; post-process.ts orders the agenda by it (docs/feed.md, "Order"). */
export const AGENDA_DAY_TYPE = "calendar-day";

/** The catalog's caps on the strings a card shows (contracts/feed-catalog.ts, AgendaList). */
const TITLE_MAX = 300;
const LOCATION_MAX = 300;

/** What the time column stands for, machine-readable: the instant it shows, or the day for all-day rows. */
function machineTime(e: TAgendaEntry, day: TDayKey): string {
  if (e.allDay || e.part === "continues") return day;
  return (e.part === "ends" ? e.end : e.start) ?? e.start;
}

function zoneNote(zone: TPersonTimeZone): string {
  if (zone.source === "settings") return `Times in ${zone.zone}, your time zone in Settings.`;
  if (zone.source === "browser") return `Times in ${zone.zone}, this browser's time zone.`;
  return "Times in UTC: set your time zone in Settings.";
}

/** The card's key (card-memo.ts): everything it is built from, `now` only through the title and the soon flags. */
function dayCardKey(day: TAgendaDay, title: string, zone: TPersonTimeZone, withNote: boolean): string {
  const parts: (string | number | boolean | null)[] = [day.day, title, zone.zone, zone.source, withNote, day.more];
  for (const e of day.events) {
    parts.push(e.key, e.title, e.location, e.allDay, e.recurring, e.start, e.end, e.part, e.time, e.detail);
    parts.push(e.startsSoon);
  }
  return cardKey(AGENDA_DAY_TYPE, parts);
}

/**
 * One day of the agenda as a card: "Today", "Tomorrow" or the weekday and date; its events in time order (their
 * times already written in the person's zone, so the browser shows the server's text as it is); the slots a
 * calendar card declares (context, logistics, weather), for the whole day. Today's card is shown even when nothing
 * is left on it (the weather sits beside it); `withNote` adds which zone the times are in.
 */
export function agendaDayItem(
  day: TAgendaDay,
  ctx: { today: TDayKey; zone: TPersonTimeZone; withNote: boolean },
): TFeedItem {
  const isToday = day.day === ctx.today;
  const title = dayTitle(day.day, ctx.today);
  const date = longDate(day.day);
  const soon = day.events.some((e) => e.startsSoon);
  const header: TSpecNode[] = [{ key: "title", type: "Heading", props: { text: title } }];
  // "Wednesday 9 Dec" says its date already; Today and Tomorrow say theirs beside it.
  if (title !== date) header.push({ key: "date", type: "Text", props: { text: date, tone: "muted" } });
  const body: TSpecNode[] = [
    { key: "header", type: "Stack", props: { direction: "horizontal", gap: "sm" }, children: header },
  ];
  if (day.events.length === 0) {
    body.push({
      key: "empty",
      type: "Text",
      props: { text: `Nothing on your calendar for the rest of ${isToday ? "today" : "the day"}.`, tone: "muted" },
    });
  } else {
    body.push(
      {
        key: "events",
        type: "AgendaList",
        props: {
          label: `${title}, ${date}`,
          more: day.more > 0 ? day.more : null,
          events: day.events.map((e) => ({
            time: e.time,
            at: machineTime(e, day.day),
            title: e.title.slice(0, TITLE_MAX),
            location: e.location?.slice(0, LOCATION_MAX) ?? null,
            detail: e.detail,
            recurring: e.recurring,
          })),
        },
      },
      { key: "context", type: "Slot", props: { name: "context" } },
      { key: "logistics", type: "Slot", props: { name: "logistics" } },
      { key: "weather", type: "Slot", props: { name: "weather" } },
    );
  }
  if (ctx.withNote) body.push({ key: "zone", type: "Text", props: { text: zoneNote(ctx.zone), tone: "muted" } });

  const timeRelevance = isToday
    ? soon
      ? "imminent"
      : "upcoming"
    : day.day === addDays(ctx.today, 1)
      ? "upcoming"
      : "ambient";
  const item: TFeedItem = {
    id: `agenda:${day.day}`,
    sourceId: "calendar",
    type: AGENDA_DAY_TYPE,
    timestamp: day.start,
    data: {
      day: day.day,
      title,
      date,
      today: isToday,
      timeZone: ctx.zone.zone,
      events: day.events.map((e) => ({
        title: e.title,
        time: e.time,
        ...(e.detail ? { detail: e.detail } : {}),
        location: e.location,
        allDay: e.allDay,
        start: e.start,
        end: e.end,
        ...(e.recurring ? { recurring: true } : {}),
        // Part of the enhancement's input: an event becoming imminent is a context change (docs/design.md §6), so the
        // day's logistics are written again for "leave now" rather than "this afternoon".
        ...(e.startsSoon ? { startsSoon: true } : {}),
      })),
      ...(day.more > 0 ? { more: day.more } : {}),
      ...(soon ? { startsSoon: true } : {}),
    },
    signals: { urgency: isToday ? (soon ? 0.7 : 0.5) : timeRelevance === "upcoming" ? 0.4 : 0.3, timeRelevance },
    ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, body),
    // The slots the design gives a calendar card (docs/feed.md), one set for the day: nothing to say on an empty one.
    ...(day.events.length > 0
      ? {
          slots: {
            context: {
              description:
                "How this day's events connect to the user's decisions or tracked changes (one sentence), or nothing",
              content: null,
            },
            logistics: {
              description: "Travel time, what to bring or prepare for this day's events (one sentence)",
              content: null,
            },
            weather: {
              description: "Weather conditions relevant to this day's events, their times and places (one sentence)",
              content: null,
            },
          },
        }
      : {}),
  };
  return keyCard(item, dayCardKey(day, title, ctx.zone, ctx.withNote));
}

import { z } from "zod";
import { resolveOccurrenceTime, type TCalendarOccurrence } from "../calendar/parse-calendar";
import { addDays, clockTime, dayKeyOf, dayStart, shortDate, type TDayKey } from "./zoned-day";

/**
 * The calendar as an agenda (docs/feed.md, "Agenda"): the occurrences ical.js expanded (parse-calendar.ts — a daily
 * RRULE is already one occurrence per day) sorted into the days of the person's time zone, today first. A day holds
 * each occurrence that overlaps it once: all-day events and the middle days of long ones first, then the rest by
 * their time on that day. An event that crosses midnight is on both days ("22:00, until Tue 8 Dec 02:00" and "until
 * 02:00"). Events that have ended are left out. Pure: the zone and `now` are arguments.
 */

export const ZAgendaEntrySchema = z.object({
  /** One occurrence: its UID and its recurrence id (or start). */
  key: z.string(),
  title: z.string(),
  location: z.string().nullable(),
  allDay: z.boolean(),
  /** Part of a series (RRULE/RDATE). */
  recurring: z.boolean(),
  /** The occurrence's own bounds: instants (ISO) for timed events; dates for all-day ones (`end` exclusive). */
  start: z.string(),
  end: z.string().nullable(),
  /** Which part of the event this day holds. */
  part: z.enum(["whole", "starts", "continues", "ends"]),
  /** The agenda's time column ("09:00–09:30", "All day", "until 02:00") and what else the day needs to say. */
  time: z.string(),
  detail: z.string().nullable(),
  /** Starts within 2 hours of `now`, or is under way (a context change for the enhancement, docs/feed.md). */
  startsSoon: z.boolean(),
});
export type TAgendaEntry = z.infer<typeof ZAgendaEntrySchema>;

export type TAgendaDay = {
  day: TDayKey;
  /** When the day begins in the zone. */
  start: Date;
  events: TAgendaEntry[];
  /** Events of the day beyond `maxPerDay`, left out. */
  more: number;
};

export type TAgendaOptions = {
  zone: string;
  now: Date;
  /** Days from today (today included). */
  days: number;
  maxPerDay: number;
};

const SOON_MS = 2 * 3_600_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `sortMs`: the row's instant on its day; 0 for all-day rows, which so come before every time. */
type TPlaced = { entry: TAgendaEntry; sortMs: number };

/** Every day from `from` to `to`, both included. */
function* daysBetween(from: TDayKey, to: TDayKey): Generator<TDayKey> {
  for (let day = from; day <= to; day = addDays(day, 1)) yield day;
}

const later = (a: TDayKey, b: TDayKey) => (a > b ? a : b);
const earlier = (a: TDayKey, b: TDayKey) => (a < b ? a : b);

export function groupAgenda(occurrences: readonly TCalendarOccurrence[], opts: TAgendaOptions): TAgendaDay[] {
  const { zone, now } = opts;
  const today = dayKeyOf(now, zone);
  const last = addDays(today, opts.days - 1);
  const placed = new Map<TDayKey, Map<string, TPlaced>>();
  for (const day of daysBetween(today, last)) placed.set(day, new Map());
  const place = (day: TDayKey, p: TPlaced) => {
    const list = placed.get(day);
    if (list && !list.has(p.entry.key)) list.set(p.entry.key, p);
  };

  for (const o of occurrences) {
    const key = `${o.uid}\n${o.recurrenceId ?? o.start}`;
    const base = {
      key,
      title: o.summary,
      location: o.location,
      allDay: o.allDay,
      recurring: o.recurrenceId !== null,
      start: o.start,
      end: o.end,
    };
    if (o.allDay && DATE.test(o.start)) {
      // A date is the same day in every zone; `end` is exclusive (RFC 5545), one day when missing.
      const end = o.end && DATE.test(o.end) && o.end > o.start ? o.end : addDays(o.start, 1);
      const lastDay = addDays(end, -1);
      const span = lastDay === o.start ? null : `${shortDate(o.start)} – ${shortDate(lastDay)}`;
      for (const day of daysBetween(later(o.start, today), earlier(lastDay, last))) {
        const entry = { ...base, part: "whole", time: "All day", detail: span, startsSoon: false } as const;
        place(day, { entry, sortMs: 0 });
      }
      continue;
    }
    const start = resolveOccurrenceTime(o.start, zone);
    const rawEnd = o.end ? resolveOccurrenceTime(o.end, zone) : start;
    if (Number.isNaN(start.getTime())) continue;
    const end = Number.isNaN(rawEnd.getTime()) || rawEnd < start ? start : rawEnd;
    if (end.getTime() < now.getTime()) continue; // over
    const firstDay = dayKeyOf(start, zone);
    // The end is exclusive: an event until midnight is not on the next day.
    const lastDay = end > start ? dayKeyOf(new Date(end.getTime() - 1), zone) : firstDay;
    const startsSoon = start.getTime() - now.getTime() <= SOON_MS;
    const until = `until ${shortDate(lastDay)} ${clockTime(end, zone)}`;
    for (const day of daysBetween(later(firstDay, today), earlier(lastDay, last))) {
      const soon = startsSoon && day === today;
      if (firstDay === lastDay) {
        const time = end > start ? `${clockTime(start, zone)}–${clockTime(end, zone)}` : clockTime(start, zone);
        const entry = { ...base, part: "whole", time, detail: null, startsSoon: soon } as const;
        place(day, { entry, sortMs: start.getTime() });
      } else if (day === firstDay) {
        const entry = {
          ...base,
          part: "starts",
          time: clockTime(start, zone),
          detail: until,
          startsSoon: soon,
        } as const;
        place(day, { entry, sortMs: start.getTime() });
      } else if (day === lastDay) {
        const since = `since ${shortDate(firstDay)} ${clockTime(start, zone)}`;
        const entry = {
          ...base,
          part: "ends",
          time: `until ${clockTime(end, zone)}`,
          detail: since,
          startsSoon: soon,
        } as const;
        place(day, { entry, sortMs: dayStart(day, zone).getTime() });
      } else {
        const entry = { ...base, part: "continues", time: "All day", detail: until, startsSoon: soon } as const;
        place(day, { entry, sortMs: 0 });
      }
    }
  }

  return [...placed].map(([day, entries]) => {
    const sorted = [...entries.values()].sort(
      (a, b) =>
        a.sortMs - b.sortMs ||
        a.entry.title.localeCompare(b.entry.title, "en") ||
        (a.entry.key < b.entry.key ? -1 : a.entry.key > b.entry.key ? 1 : 0),
    );
    return {
      day,
      start: dayStart(day, zone),
      events: sorted.slice(0, opts.maxPerDay).map((p) => p.entry),
      more: Math.max(0, sorted.length - opts.maxPerDay),
    };
  });
}

import { addDays, clockIn, dayKeyOf, dayName, dayStart, type TDayKey } from "./briefing-day";

/**
 * The rules-mode briefing (docs/feed.md, "The briefing card"): the day's top card in at most two lines, built by code
 * from the material changes since yesterday and today's calendar — the same facts the model's briefing is written
 * from, and what the card shows whenever there is no model text for exactly these inputs (AI off, a failed call, an
 * enhancement not yet run for them). Pure: the same inputs give the same lines.
 */

/** One tracker's material changes in the window, described by its newest. */
export type TBriefingChange = {
  trackerId: string;
  /** What people call the thing: its name, else its decision (shortened, in quotes). */
  subject: string;
  /** What changed, in a few words: "price −10%"; for a set, its roll-up's headline ("2 new products"). */
  what: string;
  /** Material changes of this tracker in the window (the newest is the one described). */
  count: number;
};

/** A calendar event as the briefing needs it: an all-day one starts at its day's midnight in the person's zone. */
export type TBriefingEvent = { title: string; allDay: boolean; start: Date; end: Date | null };

export type TBriefingInput = {
  now: Date;
  /** The person's time zone (an IANA name the platform knows). */
  zone: string;
  changes: {
    /** Every material change since yesterday began, across the person's trackers. */
    total: number;
    /** How many trackers they belong to. */
    trackerCount: number;
    /** The trackers, newest change first (a bounded prefix of `trackerCount`). */
    trackers: readonly TBriefingChange[];
  };
  /** The calendar's events around today; null when no calendar is connected (or none is readable yet). */
  events: readonly TBriefingEvent[] | null;
};

export type TBriefing = {
  day: TDayKey;
  /** "Sunday 6 December": the card's title. */
  date: string;
  /** At most two lines: the changes, then today's events (only with a calendar). */
  lines: string[];
  /** What the model reads of it (the card's `data`). */
  data: Record<string, unknown>;
};

/** Trackers named on the changes line; the rest are counted ("and 2 more"). */
export const NAMED_TRACKERS = 2;
/** Trackers the model's data lists. */
const TRACKERS_IN_DATA = 5;
/** A line's length (the catalog allows 300 a line). */
const MAX_LINE = 280;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** "Acme Pro: price −10%", "(3 changes)" when the tracker changed more than once. */
export function mentionOf(change: TBriefingChange): string {
  const times = change.count > 1 ? ` (${change.count} changes)` : "";
  return `${change.subject}: ${change.what}${times}`;
}

/** "No material changes since yesterday"; "2 material changes since yesterday — Acme Pro: price −10%, …". */
export function changesLine(changes: TBriefingInput["changes"]): string {
  if (changes.total === 0) return "No material changes since yesterday";
  const named = changes.trackers.slice(0, NAMED_TRACKERS).map(mentionOf);
  const rest = Math.max(0, changes.trackerCount - named.length);
  const list = named.join(", ") + (rest > 0 ? ` and ${rest} more` : "");
  const head = `${plural(changes.total, "material change")} since yesterday`;
  return cut(list ? `${head} — ${list}` : head, MAX_LINE);
}

type TToday = { timed: TBriefingEvent[]; allDay: TBriefingEvent[] };

/** Today's events in `zone`: timed ones that start today (by start), all-day ones whose days include today. */
export function eventsToday(events: readonly TBriefingEvent[], now: Date, zone: string): TToday {
  const today = dayKeyOf(now, zone);
  const todayStart = dayStart(today, zone).getTime();
  const tomorrowStart = dayStart(addDays(today, 1), zone).getTime();
  const timed: TBriefingEvent[] = [];
  const allDay: TBriefingEvent[] = [];
  for (const e of events) {
    const start = e.start.getTime();
    if (Number.isNaN(start)) continue;
    if (e.allDay) {
      // An all-day event's end is exclusive (the next day's midnight); none means one day.
      const end = e.end && !Number.isNaN(e.end.getTime()) ? e.end.getTime() : start + 1;
      if (start < tomorrowStart && end > todayStart) allDay.push(e);
    } else if (start >= todayStart && start < tomorrowStart) timed.push(e);
  }
  timed.sort((a, b) => a.start.getTime() - b.start.getTime() || a.title.localeCompare(b.title));
  return { timed, allDay };
}

/**
 * "No events today"; "3 events today, first at 9:30" (before the first has begun); "2 more events today, next at
 * 16:00" (after); "No more events today"; "1 all-day event today". Times in the person's zone.
 */
export function eventsLine(today: TToday, now: Date, zone: string): string {
  const { timed, allDay } = today;
  const upcoming = timed.filter((e) => e.start.getTime() > now.getTime());
  const next = upcoming[0];
  if (timed.length === 0 && allDay.length === 0) return "No events today";
  if (!next) return timed.length === 0 ? `${plural(allDay.length, "all-day event")} today` : "No more events today";
  if (upcoming.length === timed.length) {
    const allDayNote = allDay.length > 0 ? ` (${allDay.length} all day)` : "";
    return `${plural(timed.length + allDay.length, "event")} today${allDayNote}, first at ${clockIn(next.start, zone)}`;
  }
  return `${plural(upcoming.length, "more event")} today, next at ${clockIn(next.start, zone)}`;
}

/** The briefing for `input.now`'s day in the person's zone. */
export function buildBriefing(input: TBriefingInput): TBriefing {
  const { now, zone, changes } = input;
  const day = dayKeyOf(now, zone);
  const lines = [changesLine(changes)];
  let events: Record<string, unknown> | null = null;
  if (input.events) {
    const today = eventsToday(input.events, now, zone);
    lines.push(eventsLine(today, now, zone));
    const next = today.timed.find((e) => e.start.getTime() > now.getTime());
    events = {
      today: today.timed.length + today.allDay.length,
      allDay: today.allDay.length,
      upcoming: today.timed.filter((e) => e.start.getTime() > now.getTime()).length,
      next: next ? { title: next.title, at: clockIn(next.start, zone) } : null,
    };
  }
  const date = dayName(day);
  return {
    day,
    date,
    lines,
    data: {
      date,
      timeZone: zone,
      lines,
      changes: {
        total: changes.total,
        trackers: changes.trackerCount,
        latest: changes.trackers
          .slice(0, TRACKERS_IN_DATA)
          .map((c) => ({ subject: c.subject, what: c.what, count: c.count })),
      },
      events,
    },
  };
}

import ICAL from "ical.js";
import { z } from "zod";
import { resolveTzid, type TWallTime, zonedWallTimeToUtc } from "./zoned-time";

/**
 * iCalendar (RFC 5545) → the occurrences inside a time window, on ical.js: time zones (VTIMEZONE in the
 * file first, then IANA/Windows TZIDs through the platform's zone database), recurrence (RRULE, RDATE,
 * EXDATE, RECURRENCE-ID overrides, RANGE=THISANDFUTURE), cancelled events and occurrences hidden, all-day
 * events kept as dates. The file is untrusted: every loop is bounded (steps per series, steps overall,
 * occurrences kept, a time budget) and a file that cannot be read throws a CalendarParseError whose
 * message is shown to the user as the calendar's error chip.
 */

/**
 * `start`/`end` are one of: an instant ("2026-12-01T14:30:00.000Z"); a floating wall time
 * ("2026-12-01T09:30:00", no zone known: read in the user's time zone); a date ("2026-12-01", all day,
 * `end` exclusive). Floating and date values are resolved when the feed is built (resolveOccurrenceTime).
 */
export const ZCalendarOccurrenceSchema = z.object({
  uid: z.string(),
  /** The original start of this occurrence of a recurring event (same forms as `start`); null for single events. */
  recurrenceId: z.string().nullable(),
  summary: z.string(),
  location: z.string().nullable(),
  allDay: z.boolean(),
  start: z.string(),
  end: z.string().nullable(),
});
export type TCalendarOccurrence = z.infer<typeof ZCalendarOccurrenceSchema>;

export type TExpandLimits = {
  /** Recurrence steps per series before it is cut off (a daily event since 1990 is ~13 000). */
  maxStepsPerSeries: number;
  /** Recurrence steps for the whole file. */
  maxSteps: number;
  /** Occurrences kept (earliest first). */
  maxOccurrences: number;
  /** Wall-clock budget for the expansion, checked between steps. */
  budgetMs: number;
};

export const DEFAULT_EXPAND_LIMITS: TExpandLimits = {
  maxStepsPerSeries: 20_000,
  maxSteps: 300_000,
  maxOccurrences: 1_000,
  budgetMs: 5_000,
};

export type TParsedCalendar = {
  occurrences: TCalendarOccurrence[];
  /** VEVENTs that could not be read (bad dates, no DTSTART) and were left out. */
  skippedEvents: number;
  /** True when a limit cut the expansion short (some occurrences may be missing). */
  truncated: boolean;
};

export class CalendarParseError extends Error {
  override name = "CalendarParseError";
}

type TTime = InstanceType<typeof ICAL.Time>;
type TComponent = InstanceType<typeof ICAL.Component>;
type TEvent = InstanceType<typeof ICAL.Event>;

const pad = (n: number, w = 2) => String(n).padStart(w, "0");
const dateString = (t: TTime) => `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}`;
const wallString = (t: TTime) => `${dateString(t)}T${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;
const wallOf = (t: TTime): TWallTime => ({
  year: t.year,
  month: t.month,
  day: t.day,
  hour: t.hour,
  minute: t.minute,
  second: t.second,
});

/**
 * One ical.js time → our stored form. `tzid` is the TZID parameter of the property it came from: when
 * the file defines that zone, ical.js already attached it; otherwise the name is looked up (IANA,
 * Windows) and, failing that, the calendar's X-WR-TIMEZONE; with neither, the time stays floating.
 */
function toStored(t: TTime, tzid: string | null, calendarZone: string | null): string {
  if (t.isDate) return dateString(t);
  const zoneId = t.zone?.tzid;
  if (zoneId && zoneId !== "floating") return t.toJSDate().toISOString(); // UTC or a VTIMEZONE from the file
  const zone = resolveTzid(tzid) ?? calendarZone;
  return zone ? zonedWallTimeToUtc(wallOf(t), zone).toISOString() : wallString(t);
}

/** A stored value as an instant; floating values and dates read in `zone` (the user's, or UTC). */
export function resolveOccurrenceTime(value: string, zone: string | null): Date {
  if (value.endsWith("Z")) return new Date(value);
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?$/.exec(value);
  if (!m) return new Date(Number.NaN);
  const wall: TWallTime = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
  };
  const z = resolveTzid(zone);
  return z
    ? zonedWallTimeToUtc(wall, z)
    : new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute));
}

/** Approximate instant of a stored value for window checks (floating/dates as UTC; callers pad by a day). */
function roughMs(value: string): number {
  return resolveOccurrenceTime(value, null).getTime();
}

/** A text property on one line (Apple writes multi-line locations), capped. */
function text(comp: TComponent, name: string): string | null {
  const v = comp.getFirstPropertyValue(name);
  if (v === null || v === undefined) return null;
  const s = String(v)
    .split(/\s*\n\s*/)
    .filter(Boolean)
    .join(", ")
    .trim();
  return s.length > 0 ? s.slice(0, 500) : null;
}

function tzidOf(comp: TComponent, name: "dtstart" | "dtend" | "recurrence-id"): string | null {
  const p = comp.getFirstProperty(name)?.getParameter("tzid");
  return typeof p === "string" ? p : null;
}

const isCancelled = (comp: TComponent) => text(comp, "status")?.toUpperCase() === "CANCELLED";

type TWindow = { fromMs: number; toMs: number };
const DAY_MS = 86_400_000;

class Budget {
  steps = 0;
  /** Some series was cut short. */
  truncated = false;
  /** The whole file's budget is spent: stop. */
  exhausted = false;
  private readonly deadline: number;
  constructor(readonly limits: TExpandLimits) {
    this.deadline = performance.now() + limits.budgetMs;
  }
  /** One more recurrence step; false when the whole file's budget is spent. */
  step(): boolean {
    this.steps++;
    if (this.steps > this.limits.maxSteps || (this.steps % 256 === 0 && performance.now() > this.deadline)) {
      this.truncated = true;
      this.exhausted = true;
      return false;
    }
    return true;
  }
}

function occurrenceOf(
  item: TEvent,
  start: TTime,
  end: TTime | null,
  recurrenceId: string | null,
  calendarZone: string | null,
  uid: string,
): TCalendarOccurrence {
  const comp = item.component;
  const startTz = tzidOf(comp, "dtstart");
  return {
    uid,
    recurrenceId,
    summary: text(comp, "summary") ?? "(untitled event)",
    location: text(comp, "location"),
    allDay: start.isDate,
    start: toStored(start, startTz, calendarZone),
    end: end ? toStored(end, tzidOf(comp, "dtend") ?? startTz, calendarZone) : null,
  };
}

const wallMsOf = (t: TTime) => Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);

/** A one-off event (or a moved instance): cheap wall-time bounds first, zone conversion only if it may overlap. */
function addSingle(
  event: TEvent,
  recurrenceId: string | null,
  w: TWindow,
  calendarZone: string | null,
  uid: string,
  out: TCalendarOccurrence[],
): void {
  const start = event.startDate;
  const end = event.endDate;
  if (wallMsOf(start) - 2 * DAY_MS > w.toMs || wallMsOf(end ?? start) + 2 * DAY_MS < w.fromMs) return;
  const o = occurrenceOf(event, start, end, recurrenceId, calendarZone, uid);
  if (overlaps(o, w)) out.push(o);
}

function overlaps(o: TCalendarOccurrence, w: TWindow): boolean {
  const s = roughMs(o.start);
  const e = o.end ? roughMs(o.end) : s;
  return e + DAY_MS >= w.fromMs && s - DAY_MS <= w.toMs;
}

/**
 * A later start for iterating a long-running DAILY/WEEKLY series without COUNT: whole multiples of the
 * rule's period ahead of DTSTART (so the wall time, weekday and INTERVAL phase are unchanged), still at
 * least a period before `beforeMs`. The occurrences from there on are exactly the series' own (EXDATE,
 * RDATE and overrides included); the new start itself may be emitted once, far before the window.
 * Without it a weekly meeting created ten years ago costs ~500 steps through ical.js before the window.
 */
function fastForwardStart(event: TEvent, beforeMs: number): TTime | undefined {
  if (!Number.isFinite(beforeMs)) return undefined;
  const rules = event.component.getAllProperties("rrule");
  if (rules.length !== 1) return undefined;
  const rule = rules[0]?.getFirstValue() as InstanceType<typeof ICAL.Recur> | undefined;
  if (!rule || rule.count || (rule.freq !== "DAILY" && rule.freq !== "WEEKLY")) return undefined;
  const periodDays = Math.max(1, rule.interval || 1) * (rule.freq === "WEEKLY" ? 7 : 1);
  const start = event.startDate;
  const periods = Math.floor((beforeMs - 3 * DAY_MS - wallMsOf(start)) / (periodDays * DAY_MS)) - 1;
  if (periods < 1) return undefined;
  const later = start.clone();
  later.adjust(periods * periodDays, 0, 0, 0);
  return later;
}

/** One series (master + its RECURRENCE-ID overrides) → occurrences in the window. */
function expandSeries(
  master: TComponent,
  overrides: TComponent[],
  w: TWindow,
  calendarZone: string | null,
  budget: Budget,
  out: TCalendarOccurrence[],
): void {
  const event = new ICAL.Event(master, { exceptions: overrides, strictExceptions: false });
  const uid = event.uid ?? "";
  if (!event.isRecurring()) {
    addSingle(event, null, w, calendarZone, uid, out);
    return;
  }
  const startTz = tzidOf(master, "dtstart");
  // How far an occurrence may reach past its start: its own length, or a THISANDFUTURE shift (unbounded).
  const longest = event.rangeExceptions.length > 0 ? Number.POSITIVE_INFINITY : event.duration.toSeconds() * 1000;
  const iterator = event.iterator(fastForwardStart(event, w.fromMs - longest));
  let steps = 0;
  for (let next = iterator.next(); next; next = iterator.next()) {
    if (++steps > budget.limits.maxStepsPerSeries || !budget.step()) {
      budget.truncated = true;
      break;
    }
    // Wall time read as UTC is within 14 h of the instant: cheap bounds before any zone conversion.
    const wallMs = wallMsOf(next);
    if (wallMs - 2 * DAY_MS > w.toMs) break;
    if (wallMs + 2 * DAY_MS + longest < w.fromMs) continue;
    const recurrenceId = toStored(next, startTz, calendarZone);
    const details = event.getOccurrenceDetails(next);
    const item = details.item as TEvent;
    // Exact overrides are added from the override list below (their new time may be anywhere).
    if (item !== event && !item.modifiesFuture()) continue;
    if (isCancelled(item.component)) continue;
    const o = occurrenceOf(item, details.startDate, details.endDate, recurrenceId, calendarZone, uid);
    if (overlaps(o, w)) out.push(o);
  }
  for (const override of overrides) {
    if (isCancelled(override)) continue;
    const ex = new ICAL.Event(override);
    addSingle(
      ex,
      toStored(ex.recurrenceId, tzidOf(override, "recurrence-id"), calendarZone),
      w,
      calendarZone,
      uid,
      out,
    );
  }
}

type TJcal = [string, unknown[], TJcal[]];

/**
 * VCALENDARs with their events. Each calendar's events hang under a root that holds only its VTIMEZONEs:
 * ical.js looks a TZID up by scanning the root's children, and does not remember misses, so under the
 * real root every time with an undefined TZID would scan every event (quadratic on big files).
 */
function parseComponents(raw: string): { calendar: TComponent; vevents: TComponent[] }[] {
  let jcal: unknown;
  try {
    jcal = ICAL.parse(raw);
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/\s+/g, " ").slice(0, 160) : "unknown error";
    throw new CalendarParseError(`The calendar file is not valid iCalendar: ${detail}`);
  }
  // One VCALENDAR parses to a jCal component; several (concatenated files) to a list of them.
  const list = (Array.isArray(jcal) && Array.isArray(jcal[0]) ? jcal : [jcal]) as TJcal[];
  const calendars = list
    .filter((j) => Array.isArray(j) && j[0] === "vcalendar" && Array.isArray(j[2]))
    .map(([name, props, children]) => {
      const calendar = new ICAL.Component([name, props, children.filter((c) => c[0] === "vtimezone")]);
      const vevents = children.filter((c) => c[0] === "vevent").map((c) => new ICAL.Component(c, calendar));
      return { calendar, vevents };
    });
  if (calendars.length === 0) throw new CalendarParseError("The calendar file has no VCALENDAR in it.");
  return calendars;
}

/** Parses `raw` and expands it into the occurrences that overlap [from, to), earliest first. */
export function parseCalendar(
  raw: string,
  window: { from: Date; to: Date },
  limits: TExpandLimits = DEFAULT_EXPAND_LIMITS,
): TParsedCalendar {
  const w = { fromMs: window.from.getTime(), toMs: window.to.getTime() };
  const budget = new Budget(limits);
  const out: TCalendarOccurrence[] = [];
  let skippedEvents = 0;

  for (const { calendar, vevents } of parseComponents(raw)) {
    const calendarZone = resolveTzid(text(calendar, "x-wr-timezone"));
    // Series by UID: the master (no RECURRENCE-ID) and its overrides. Overrides without a master
    // (an invitation to one instance) stand alone.
    const series = new Map<string, { master: TComponent | null; overrides: TComponent[] }>();
    let anonymous = 0;
    for (const vevent of vevents) {
      const uid = text(vevent, "uid") ?? `no-uid-${++anonymous}`;
      const entry = series.get(uid) ?? { master: null, overrides: [] };
      if (vevent.hasProperty("recurrence-id")) entry.overrides.push(vevent);
      else if (!entry.master) entry.master = vevent;
      series.set(uid, entry);
    }
    for (const { master, overrides } of series.values()) {
      if (budget.exhausted) break;
      try {
        if (master && isCancelled(master)) continue;
        if (master) {
          if (!master.hasProperty("dtstart")) {
            skippedEvents++;
            continue;
          }
          expandSeries(master, overrides, w, calendarZone, budget, out);
        } else {
          for (const lone of overrides) {
            if (isCancelled(lone) || !lone.hasProperty("dtstart")) continue;
            const ev = new ICAL.Event(lone, { exceptions: [] });
            addSingle(ev, null, w, calendarZone, ev.uid ?? "", out);
          }
        }
      } catch {
        skippedEvents++; // one unreadable event (bad date, bad RRULE) does not lose the calendar
      }
    }
  }

  const seen = new Set<string>();
  const occurrences = out
    .filter((o) => {
      const key = `${o.uid}\n${o.recurrenceId ?? o.start}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => roughMs(a.start) - roughMs(b.start));
  const truncated = budget.truncated || occurrences.length > limits.maxOccurrences;
  return { occurrences: occurrences.slice(0, limits.maxOccurrences), skippedEvents, truncated };
}

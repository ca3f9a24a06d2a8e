import { wallTimeAt, zonedWallTimeToUtc } from "../calendar/zoned-time";

/**
 * Calendar days and clock times in the person's time zone (docs/feed.md, "Time zone"). The text is built by hand
 * from the zone's wall time (English names, 24-hour clock), so it reads the same on every server and in every
 * browser: the page's HTML is final and nothing is rewritten when it hydrates.
 */

/** A calendar day, "2026-12-07". */
export type TDayKey = string;

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

function partsOf(day: TDayKey): { year: number; month: number; day: number } {
  const [year, month, d] = day.split("-").map(Number);
  return { year: year ?? 1970, month: month ?? 1, day: d ?? 1 };
}

/** The day an instant falls on in `zone`. */
export function dayKeyOf(instant: Date, zone: string): TDayKey {
  const w = wallTimeAt(instant.getTime(), zone);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

/** `day` moved by whole days (calendar arithmetic: no zone, no DST). */
export function addDays(day: TDayKey, days: number): TDayKey {
  const p = partsOf(day);
  return new Date(Date.UTC(p.year, p.month - 1, p.day + days)).toISOString().slice(0, 10);
}

/** The instant `day` begins in `zone` (its midnight; the first minute after it where clocks skip midnight). */
export function dayStart(day: TDayKey, zone: string): Date {
  return zonedWallTimeToUtc({ ...partsOf(day), hour: 0, minute: 0, second: 0 }, zone);
}

function weekdayIndex(day: TDayKey): number {
  const p = partsOf(day);
  return new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay();
}

/** "Mon 7 Dec". */
export function shortDate(day: TDayKey): string {
  const p = partsOf(day);
  return `${WEEKDAYS[weekdayIndex(day)]?.slice(0, 3)} ${p.day} ${MONTHS[p.month - 1]}`;
}

/** "Monday 7 Dec". */
export function longDate(day: TDayKey): string {
  const p = partsOf(day);
  return `${WEEKDAYS[weekdayIndex(day)]} ${p.day} ${MONTHS[p.month - 1]}`;
}

/** A day's card title as seen from `today`: "Today", "Tomorrow", else its weekday and date ("Wednesday 9 Dec"). */
export function dayTitle(day: TDayKey, today: TDayKey): string {
  if (day === today) return "Today";
  if (day === addDays(today, 1)) return "Tomorrow";
  return longDate(day);
}

/** "14:30": the clock in `zone`. */
export function clockTime(instant: Date, zone: string): string {
  const w = wallTimeAt(instant.getTime(), zone);
  return `${pad(w.hour)}:${pad(w.minute)}`;
}

/** "2026-11-30 00:00 Asia/Tokyo" ("… UTC" in UTC): an exact stamp for messages such as a stale copy's age. */
export function stampIn(instant: Date, zone: string): string {
  return `${dayKeyOf(instant, zone)} ${clockTime(instant, zone)} ${zone === "Etc/UTC" || zone === "Etc/GMT" ? "UTC" : zone}`;
}

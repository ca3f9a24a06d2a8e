import { MONTHS } from "@/contracts/dates";
import { zonedWallTimeToUtc } from "../calendar/zoned-time";

/**
 * The briefing's day in the person's time zone (docs/feed.md, "The briefing card"): which day `now` is, when it and
 * yesterday began, its name ("Sunday 6 December") and clock times ("9:30"). English names and a 24-hour clock, the
 * same on every server, so the card (and its memo key) depend on the instant and the zone only.
 */

/** A calendar day, "2026-12-06". */
export type TDayKey = string;

const pad = (n: number) => String(n).padStart(2, "0");

/** The zone when the platform knows it, else UTC (a stale setting must not fail the feed). */
export function briefingZone(zone: string | null | undefined): string {
  if (!zone) return "UTC";
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: zone });
    return zone;
  } catch {
    return "UTC";
  }
}

const PARTS = new Map<string, Intl.DateTimeFormat>();

function wallOf(
  instant: Date,
  zone: string,
): { year: number; month: number; day: number; hour: number; minute: number } {
  let format = PARTS.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      hourCycle: "h23",
    });
    PARTS.set(zone, format);
  }
  const out = { year: 1970, month: 1, day: 1, hour: 0, minute: 0 };
  for (const part of format.formatToParts(instant)) {
    if (part.type in out) out[part.type as keyof typeof out] = Number(part.value);
  }
  return out;
}

/** The day an instant falls on in `zone`. */
export function dayKeyOf(instant: Date, zone: string): TDayKey {
  const w = wallOf(instant, zone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}`;
}

function partsOf(day: TDayKey): { year: number; month: number; day: number } {
  const [year = 1970, month = 1, d = 1] = day.split("-").map(Number);
  return { year, month, day: d };
}

/** `day` moved by whole days (calendar arithmetic: no zone, no DST). */
export function addDays(day: TDayKey, days: number): TDayKey {
  const p = partsOf(day);
  return new Date(Date.UTC(p.year, p.month - 1, p.day + days)).toISOString().slice(0, 10);
}

/** The instant `day` begins in `zone` (its midnight, or the first minute after it where clocks skip midnight). */
export function dayStart(day: TDayKey, zone: string): Date {
  return zonedWallTimeToUtc({ ...partsOf(day), hour: 0, minute: 0, second: 0 }, zone);
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

/** "Sunday 6 December". */
export function dayName(day: TDayKey): string {
  const p = partsOf(day);
  const weekday = new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay();
  return `${WEEKDAYS[weekday]} ${p.day} ${MONTHS[p.month - 1]}`;
}

/** "9:30", "16:05": the clock in `zone`. */
export function clockIn(instant: Date, zone: string): string {
  const w = wallOf(instant, zone);
  return `${w.hour}:${pad(w.minute)}`;
}

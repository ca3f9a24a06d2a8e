/**
 * How Bellwether shows an instant (docs/feed.md, "Time zone"). Pure functions, safe on server and client.
 *
 * Every time is written in the person's zone — Settings', else the browser's (a cookie), else UTC — which the server
 * resolves once per request and hands to the page (time-zone.tsx). The text is built by hand from the zone's wall
 * time (English month names, 24-hour clock), not from a locale, so the server's HTML and the hydrated page write the
 * same characters and nothing is rewritten after hydration.
 */

import { wallTimeAt } from "@/contracts/wall-time";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

export type TInstant = Date | string | number;

/** A Date for a Date, an ISO string or epoch milliseconds; null when it is not a valid instant. */
export function toDate(value: TInstant): Date | null {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** "1 Dec 2026, 01:27 UTC": the same text on every server and browser (no Intl, no local zone). */
export function formatUtc(date: Date): string {
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())} UTC`;
}

const knownZones = new Map<string, boolean>();

/** Whether this runtime knows `zone` (an unknown one reads as UTC, and says so); asked once per zone. */
function knowsZone(zone: string): boolean {
  let known = knownZones.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    knownZones.set(zone, known);
  }
  return known;
}

/** "12 Dec 2026, 23:30 Asia/Tokyo": an instant in `zone`, the same text on every server and browser. */
export function formatInZone(date: Date, zone: string): string {
  if (zone === "UTC" || !knowsZone(zone)) return formatUtc(date);
  const w = wallTimeAt(date.getTime(), zone);
  return `${w.day} ${MONTHS[w.month - 1]} ${w.year}, ${pad(w.hour)}:${pad(w.minute)} ${zone}`;
}

/** A UTC calendar day ("2026-11-29", as retention sums runs) as a Date at its UTC midnight; null when invalid. */
export function parseUtcDay(day: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== day ? null : date;
}

/** "29 Nov 2026": a UTC day with the same month names as {@link formatUtc}, identical in every runtime. */
export function formatUtcDay(date: Date): string {
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

/**
 * A time-axis tick in a locale and zone: with seconds while the axis spans under five minutes, the time of day under
 * two days, the day and month beyond. Charts draw once their box is measured, so only in the browser.
 */
export function formatAxisTime(
  date: Date,
  spanMs: number,
  options: { locale?: string; timeZone?: string } = {},
): string {
  const zone = options.timeZone ? { timeZone: options.timeZone } : {};
  const parts: Intl.DateTimeFormatOptions =
    spanMs < 5 * 60_000
      ? { hour: "2-digit", minute: "2-digit", second: "2-digit" }
      : spanMs < 2 * 86_400_000
        ? { hour: "2-digit", minute: "2-digit" }
        : { day: "numeric", month: "short" };
  return new Intl.DateTimeFormat(options.locale, { ...parts, ...zone }).format(date);
}

/**
 * How Bellwether shows an instant. Pure functions, safe on server and client.
 *
 * The server may run in any time zone and locale, and the reader's browser in another, so a time is first
 * rendered as {@link formatUtc} — built by hand from the UTC fields, identical in every runtime and ICU
 * version — and only after hydration as {@link formatLocal}, in the reader's zone and locale
 * (see local-time.tsx). Both show the same thing: a medium date and a time to the minute.
 */

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

/** The reader's own format and time zone, e.g. "01.12.2026, 17:27" in de-DE. Client only, after hydration. */
export function formatLocal(date: Date, options: { locale?: string; timeZone?: string } = {}): string {
  return new Intl.DateTimeFormat(options.locale, {
    dateStyle: "medium",
    timeStyle: "short",
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
  }).format(date);
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

/** The reader's medium date for a UTC day (the day itself, not shifted into their zone). Client only. */
export function formatLocalDay(date: Date, options: { locale?: string } = {}): string {
  return new Intl.DateTimeFormat(options.locale, { dateStyle: "medium", timeZone: "UTC" }).format(date);
}

/**
 * A time-axis tick in the reader's locale and zone: with seconds while the axis spans under five minutes, the time
 * of day under two days, the day and month beyond. Client only (charts render after hydration).
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

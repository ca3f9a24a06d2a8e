import { z } from "zod";

/**
 * Dates in requests (e.g. the timeline window of tRPC tracker.timeline and REST GET …/timeline): ISO 8601 dates
 * checked against the calendar. `new Date("2026-02-31")` silently means 3 March; here it is refused, naming the month's
 * length, so a typo never quietly shifts the window. zod's ISO formats (a maintained implementation of
 * the spec's syntax) check month lengths and leap years.
 */

const ZIsoDateOrDateTimeSchema = z.union([z.iso.date(), z.iso.datetime({ offset: true, local: true })]);

/** English month names, January first (shared by date checks and the briefing's date line). */
export const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

export const TIMELINE_DATE_FORMAT_HINT = "must be an ISO 8601 date, e.g. 2026-01-31 or 2026-01-31T00:00:00Z";

/** The instant an ISO 8601 date or date-time names, or what is wrong with it (a phrase after the input's name). */
export function checkTimelineDate(raw: string): { ok: true; date: Date } | { ok: false; problem: string } {
  const text = raw.trim();
  if (ZIsoDateOrDateTimeSchema.safeParse(text).success) {
    const date = new Date(text);
    if (!Number.isNaN(date.getTime())) return { ok: true, date };
  }
  const ymd = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(text);
  if (ymd) {
    const [year, month, day] = [Number(ymd[1]), Number(ymd[2]), Number(ymd[3])];
    if (month < 1 || month > 12)
      return { ok: false, problem: `is not a calendar date: ${text} (there is no month ${month})` };
    const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
    if (day < 1 || day > days) {
      return { ok: false, problem: `is not a calendar date: ${text} (${MONTHS[month - 1]} ${year} has ${days} days)` };
    }
  }
  return { ok: false, problem: TIMELINE_DATE_FORMAT_HINT };
}

/** A date in a request: a Date (tRPC, superjson) or an ISO 8601 string (REST query) checked by checkTimelineDate. */
export function zRequestDate(name: string) {
  return z.union([z.date(), z.string()]).transform((value, ctx) => {
    if (value instanceof Date) {
      if (!Number.isNaN(value.getTime())) return value;
      ctx.addIssue({ code: "custom", message: `"${name}" is not a valid date.` });
      return z.NEVER;
    }
    const checked = checkTimelineDate(value);
    if (checked.ok) return checked.date;
    ctx.addIssue({ code: "custom", message: `"${name}" ${checked.problem}.` });
    return z.NEVER;
  });
}

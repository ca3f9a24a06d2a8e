import { z } from "zod";

/**
 * Building blocks shared by every contract. Client-safe: zod and pure functions only.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Text a person or client sends. PostgreSQL cannot store NUL, and lone UTF-16 surrogates become invalid UTF-8, so
 * both are refused here with a 400 instead of failing as a 500 inside the database.
 */
export const zText = (opts: { min?: number; max: number; label?: string }) =>
  z
    .string()
    .min(opts.min ?? 0, opts.min ? `${opts.label ?? "This"} must not be empty.` : undefined)
    .max(opts.max, `${opts.label ?? "This"} must be at most ${opts.max} characters.`)
    .refine((s) => !s.includes("\u0000"), { message: "Text must not contain NUL characters." })
    .refine((s) => !LONE_SURROGATE.test(s), { message: "Text must be valid Unicode (no lone surrogates)." });

/** An id of a row; opaque to clients. */
export const ZIdSchema = zText({ min: 1, max: 64, label: "The id" });

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses an ISO 8601 date or date-time strictly: `2026-02-31` is an error, not 3 March (JavaScript's Date rolls
 * impossible days over). A date without a time is midnight UTC. Returns null when the text is not a real date.
 */
export function parseStrictIsoDate(text: string): Date | null {
  const m = ISO_DATE.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0"] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  const date = new Date(m[4] === undefined ? `${y}-${mo}-${d}T00:00:00Z` : text.trim());
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A date in a request: a Date (tRPC, superjson) or an ISO 8601 string (REST query), checked strictly. */
export const zRequestDate = z.union([z.date(), z.string()]).transform((value, ctx) => {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) ctx.addIssue({ code: "custom", message: "Invalid date." });
    return value;
  }
  const date = parseStrictIsoDate(value);
  if (!date) {
    ctx.addIssue({ code: "custom", message: `"${value.slice(0, 40)}" is not a real ISO 8601 date, e.g. 2026-01-31.` });
    return z.NEVER;
  }
  return date;
});

/** The JSON body of every HTTP error (REST, cron, streaming routes). */
export const ZErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe("Machine-readable code, e.g. NOT_FOUND, BAD_REQUEST"),
      message: z.string().describe("What went wrong, written for people"),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: "Error" });

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

/**
 * The path of the first string inside `value` (deeply, bounded) that PostgreSQL cannot store — NUL or a lone
 * surrogate — or null. Used on every raw request input (tRPC, REST, setup turns), so no procedure can turn such
 * text into a 500 inside the database.
 */
export function findUnstorableText(value: unknown, path = "", depth = 0): string | null {
  if (typeof value === "string")
    return value.includes("\u0000") || LONE_SURROGATE.test(value) ? path || "(input)" : null;
  if (depth > 20 || value === null || typeof value !== "object") return null;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes("\u0000") || LONE_SURROGATE.test(key)) return path ? `${path}.${key}` : key;
    const found = findUnstorableText(item, path ? `${path}.${key}` : key, depth + 1);
    if (found) return found;
  }
  return null;
}

/** An id of a row; opaque to clients. */
export const ZIdSchema = zText({ min: 1, max: 64, label: "The id" });

/** The JSON body of every HTTP error (REST, cron, streaming routes). */
export const ZErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe("Machine-readable code, e.g. NOT_FOUND, BAD_REQUEST"),
      message: z.string().describe("What went wrong, written for people"),
      details: z.record(z.string(), z.unknown()).optional(),
      fieldErrors: z
        .record(z.string(), z.string())
        .optional()
        .describe('Invalid input: field path (e.g. "definition.fields.0.name") → what is wrong with it'),
    }),
  })
  .meta({ id: "Error" });

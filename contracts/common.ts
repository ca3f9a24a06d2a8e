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

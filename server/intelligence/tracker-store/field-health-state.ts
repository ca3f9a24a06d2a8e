import { z } from "zod";

/**
 * The tracker's field health as stored in `Tracker.fieldHealth` (docs/field-health.md): how many of the definition's
 * fields read a value at the last fill, and per field that read before but reads nothing now, the runs in a row it
 * has read nothing and why. Parsed here, at the boundary.
 */
export const ZFieldMissSchema = z.object({
  runs: z.number().int().min(1),
  /** Why, in words: "`#pro .price` matches nothing on the page". */
  why: z.string(),
});

export const ZFieldHealthSchema = z.object({
  read: z.number().int().min(0),
  total: z.number().int().min(0),
  misses: z.record(z.string(), ZFieldMissSchema),
});
export type TFieldHealth = z.infer<typeof ZFieldHealthSchema>;

/** A stored value that does not parse counts as "nothing known yet", never as a failure of the reader. */
export function parseFieldHealth(value: unknown): TFieldHealth | null {
  const parsed = ZFieldHealthSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * "needs attention" in words, or null: the fields that have read nothing for `after` runs or more, e.g.
 * "price has read nothing for 3 runs: `#pro .price` matches nothing on the page".
 */
export function attentionReasonOf(health: TFieldHealth | null, after: number): string | null {
  if (!health) return null;
  const lines = Object.entries(health.misses)
    .filter(([, miss]) => miss.runs >= after)
    .map(([field, miss]) => `${field} has read nothing for ${miss.runs} runs: ${miss.why}`);
  return lines.length ? lines.join("; ") : null;
}

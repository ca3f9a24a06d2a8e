import { z } from "zod";
import type { TValidation } from "../../fill/structured-call";

/**
 * The agent's answer when fields stopped reading after a redesign (docs/page-view.md, "Fixing a field"): per field,
 * the numbered place on the page now that shows the same thing, or none.
 */
export const ZReanchorAnswerSchema = z.object({
  proposals: z
    .array(
      z.object({
        field: z.string().describe("The field's name, exactly as listed"),
        place: z
          .number()
          .int()
          .nullable()
          .describe("The number of the place on the page now that shows what the field read before; null if none does"),
        why: z.string().max(300).describe("One short sentence: why this place is the same thing (or why none is)"),
      }),
    )
    .describe("One entry per listed field"),
});
export type TReanchorAnswer = z.infer<typeof ZReanchorAnswerSchema>;

/** The JSON schema sent to the provider (strict-mode friendly): field names and place numbers are enumerated. */
export function buildReanchorJsonSchema(fields: readonly string[], places: number): Record<string, unknown> {
  return {
    type: "object",
    additionalProperties: false,
    required: ["proposals"],
    properties: {
      proposals: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["field", "place", "why"],
          properties: {
            field: { type: "string", enum: [...fields] },
            place: { type: ["integer", "null"], minimum: 0, maximum: Math.max(0, places - 1) },
            why: { type: "string" },
          },
        },
      },
    },
  };
}

/** Our own check of the answer: known fields, places in range; unknown fields are dropped. */
export function validateReanchorAnswer(
  fields: readonly string[],
  places: number,
  value: unknown,
): TValidation<TReanchorAnswer> {
  const parsed = ZReanchorAnswerSchema.safeParse(value);
  if (!parsed.success)
    return { ok: false, issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
  const issues = parsed.data.proposals.flatMap((p) =>
    p.place !== null && (p.place < 0 || p.place >= places) ? [`${p.field}: place ${p.place} is not listed`] : [],
  );
  if (issues.length) return { ok: false, issues };
  return { ok: true, value: { proposals: parsed.data.proposals.filter((p) => fields.includes(p.field)) } };
}

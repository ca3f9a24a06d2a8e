import { z } from "zod";

export const ZNumericRuleSchema = z
  .strictObject({
    kind: z.literal("numeric"),
    absolute: z
      .number()
      .positive("an absolute threshold must be greater than 0")
      .optional()
      .describe("Material when the value moves by at least this much, in the field's unit (e.g. 0.2 stars)"),
    relative: z
      .number()
      .positive("a relative threshold must be greater than 0")
      .optional()
      .describe("Material when the value moves by at least this fraction of the old value (0.05 = 5%)"),
    direction: z
      .enum(["any", "up", "down"])
      .optional()
      .describe('Which moves count: "any" (default), only "up" (rises) or only "down" (drops)'),
    combine: z
      .enum(["either", "both"])
      .optional()
      .describe(
        'Only with both thresholds: "either" (default) — crossing one of them is material; "both" — the move must cross the absolute AND the relative threshold',
      ),
  })
  .refine((rule) => rule.absolute !== undefined || rule.relative !== undefined, {
    message: "a numeric rule needs an absolute or a relative threshold (or both)",
  })
  .refine((rule) => rule.combine === undefined || (rule.absolute !== undefined && rule.relative !== undefined), {
    message: '"either" / "both" needs an absolute and a relative threshold; give both, or drop "combine"',
    path: ["combine"],
  })
  .describe(
    "Decided by code: material when |Δ| ≥ absolute or (combine: either, the default) / and (combine: both) |Δ|/|old| ≥ relative",
  );

export const ZAnyChangeRuleSchema = z
  .strictObject({ kind: z.literal("any_change") })
  .describe("Decided by code: every change is material");

export const ZIgnoreRuleSchema = z
  .strictObject({ kind: z.literal("ignore") })
  .describe("Decided by code: changes are always noise");

export const ZAskAgentRuleSchema = z
  .strictObject({
    kind: z.literal("ask_agent"),
    guidance: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('What the judge should look for, e.g. "rewording is noise; a new cuisine is material"'),
  })
  .describe("Decided by the judge model, in context of the decision");

export const ZMaterialityRuleSchema = z
  .discriminatedUnion("kind", [ZNumericRuleSchema, ZAnyChangeRuleSchema, ZIgnoreRuleSchema, ZAskAgentRuleSchema])
  .describe("How a change in one field is judged; fields without a rule are judged by the agent");

export type TNumericRule = z.infer<typeof ZNumericRuleSchema>;
/** How a rule with both thresholds combines them; rules locked before `combine` existed mean "either". */
export type TThresholdCombine = NonNullable<TNumericRule["combine"]>;
export type TMaterialityRule = z.infer<typeof ZMaterialityRuleSchema>;

/** The rule every field without an explicit one gets, and the only rule for notable_signals. */
export const DEFAULT_RULE: TMaterialityRule = { kind: "ask_agent" };

import { z } from "zod";
import { ZContextRuleSchema, ZContextValueSchema } from "./context-rule-schema";
import { isNumericFieldType, NOTABLE_SIGNALS, ZFieldSchema } from "./field-schema";
import { ZIdentityRuleSchema } from "./identity-rule-schema";
import { ZMaterialityRuleSchema } from "./materiality-rule-schema";
import { ZSetPolicySchema } from "./set-rule-schema";

export const MAX_FIELDS = 40;

/** The `fields` list over the given field schema: the contract's, or the server's with checked extractors. */
export function definitionFields(field: typeof ZFieldSchema) {
  return z
    .array(field)
    .min(1, "a definition needs at least one field")
    .max(MAX_FIELDS, `a definition can have at most ${MAX_FIELDS} fields`)
    .describe(`The typed fields to watch (${NOTABLE_SIGNALS} is added automatically)`);
}

/**
 * The locked contract of a tracker (docs/design.md §3), as the setup UI edits it and the public API documents it
 * (POST /api/v1/trackers, docs/api.md). The server validates with server/intelligence/definition, which adds the
 * checks only it can run to the same shape.
 */
export const ZTrackerDefinitionSchema = z
  .strictObject({
    fields: definitionFields(ZFieldSchema),
    identityRule: ZIdentityRuleSchema,
    materiality: z
      .record(z.string(), ZMaterialityRuleSchema)
      .describe("Rule per field name; fields without a rule are judged by the agent"),
    contextValues: z
      .array(ZContextValueSchema)
      .max(10)
      .optional()
      .describe("Numbers bound from the tracker's context files (e.g. our_price), for contextRules"),
    contextRules: z
      .array(ZContextRuleSchema)
      .max(10)
      .optional()
      .describe("Code rules comparing a field with a bound value; checked before the field's materiality rule"),
    set: ZSetPolicySchema.optional().describe(
      "Present when the tracker watches a set (a feed's entries, a listing's items): each field is read per member, and the set's policy and rules judge appearances, departures and the set as a whole (docs/sets.md)",
    ),
  })
  .superRefine((definition, ctx) => {
    const byName = new Map<string, (typeof definition.fields)[number]>();
    definition.fields.forEach((field, index) => {
      if (byName.has(field.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["fields", index, "name"],
          message: `field "${field.name}" is declared twice`,
        });
      }
      byName.set(field.name, field);
    });
    for (const [name, rule] of Object.entries(definition.materiality)) {
      const field = byName.get(name);
      if (name === NOTABLE_SIGNALS) {
        ctx.addIssue({
          code: "custom",
          path: ["materiality", name],
          message: `${NOTABLE_SIGNALS} is always judged by the agent; it cannot have a rule`,
        });
      } else if (!field) {
        ctx.addIssue({
          code: "custom",
          path: ["materiality", name],
          message: `there is a rule for "${name}" but no field with that name`,
        });
      } else if (rule.kind === "numeric" && !isNumericFieldType(field.type)) {
        ctx.addIssue({
          code: "custom",
          path: ["materiality", name],
          message: `a numeric rule needs a number, integer or money field, but "${name}" is ${field.type}`,
        });
      }
    }
    (definition.set?.rules ?? []).forEach((rule, index) => {
      if (rule.kind !== "any_item_drop" && rule.kind !== "any_item_rise") return;
      const field = byName.get(rule.field);
      if (!field || !isNumericFieldType(field.type))
        ctx.addIssue({
          code: "custom",
          path: ["set", "rules", index, "field"],
          message: `a ${rule.kind} rule needs a number, integer or money field; "${rule.field}" is ${field ? field.type : "not a field"}`,
        });
    });
    const values = new Set((definition.contextValues ?? []).map((v) => v.name));
    (definition.contextValues ?? []).forEach((value, index) => {
      if ((definition.contextValues ?? []).findIndex((v) => v.name === value.name) !== index) {
        ctx.addIssue({
          code: "custom",
          path: ["contextValues", index, "name"],
          message: `"${value.name}" is bound twice`,
        });
      }
    });
    (definition.contextRules ?? []).forEach((rule, index) => {
      const field = byName.get(rule.field);
      if (!field || !isNumericFieldType(field.type)) {
        ctx.addIssue({
          code: "custom",
          path: ["contextRules", index, "field"],
          message: `a context rule needs a number, integer or money field; "${rule.field}" is ${field ? field.type : "not a field"}`,
        });
      }
      if (!values.has(rule.value)) {
        ctx.addIssue({
          code: "custom",
          path: ["contextRules", index, "value"],
          message: `"${rule.value}" is not one of the contextValues`,
        });
      }
    });
  })
  .describe("The locked contract of a tracker: what to watch, how to identify it, and what counts as material");

export type TTrackerDefinition = z.infer<typeof ZTrackerDefinitionSchema>;

import { z } from "zod";
import { ZMaterialityRuleSchema } from "@/contracts/definition/materiality-rule-schema";
import { isNumericFieldType, NOTABLE_SIGNALS, ZFieldSchema } from "./field-schema";
import { ZIdentityRuleSchema } from "./identity-rule-schema";

export const MAX_FIELDS = 40;

export const ZTrackerDefinitionSchema = z
  .strictObject({
    fields: z
      .array(ZFieldSchema)
      .min(1, "a definition needs at least one field")
      .max(MAX_FIELDS, `a definition can have at most ${MAX_FIELDS} fields`)
      .describe(`The typed fields to watch (${NOTABLE_SIGNALS} is added automatically)`),
    identityRule: ZIdentityRuleSchema,
    materiality: z
      .record(z.string(), ZMaterialityRuleSchema)
      .describe("Rule per field name; fields without a rule are judged by the agent"),
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
  })
  .describe("The locked contract of a tracker: what to watch, how to identify it, and what counts as material");

export type TTrackerDefinition = z.infer<typeof ZTrackerDefinitionSchema>;

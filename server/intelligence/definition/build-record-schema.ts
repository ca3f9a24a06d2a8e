import { z } from "zod";
import { NOTABLE_SIGNALS, type TField } from "./field-schema";
import { effectiveFields } from "./reserved-fields";
import type { TTrackerDefinition } from "./tracker-definition-schema";

export type TRecordSchema = z.ZodObject<Record<string, z.ZodType>, z.core.$strict>;

/**
 * The zod schema of a filled record (or of the part of it the model must fill, with onlyFields).
 * Strict: unknown keys are rejected. Every key is required and nullable rather than optional, so
 * z.toJSONSchema(...) is accepted by OpenAI strict structured output as is. notable_signals is
 * always included and never null.
 */
export function buildRecordSchema(
  definition: TTrackerDefinition,
  options: { onlyFields?: readonly string[] } = {},
): TRecordSchema {
  if (!Object.isFrozen(definition)) return buildSchema(definition, options);
  // A frozen definition is a locked version (parseLockedDefinition): the same object on every refresh, so its
  // schemas are built — and compiled by zod on their first parse — once, not on every changed refresh (docs/design.md §3).
  const key = options.onlyFields ? `only:${options.onlyFields.join("\u0000")}` : "all";
  let byFields = SCHEMAS.get(definition);
  const cached = byFields?.get(key);
  if (cached) return cached;
  const schema = buildSchema(definition, options);
  if (!byFields) {
    byFields = new Map();
    SCHEMAS.set(definition, byFields);
  }
  byFields.set(key, schema);
  return schema;
}

const SCHEMAS = new WeakMap<TTrackerDefinition, Map<string, TRecordSchema>>();

function buildSchema(definition: TTrackerDefinition, options: { onlyFields?: readonly string[] }): TRecordSchema {
  const fields = effectiveFields(definition);
  const known = new Set(fields.map((f) => f.name));
  const unknown = options.onlyFields?.filter((name) => !known.has(name)) ?? [];
  if (unknown.length > 0) throw new Error(`buildRecordSchema: unknown field(s) ${unknown.join(", ")}`);
  const wanted = options.onlyFields ? new Set([...options.onlyFields, NOTABLE_SIGNALS]) : known;

  const shape: Record<string, z.ZodType> = {};
  for (const field of fields) {
    if (wanted.has(field.name)) shape[field.name] = fieldValueSchema(field);
  }
  return z.strictObject(shape);
}

/** The schema of one field's value (nullable, except notable_signals). */
export function fieldValueSchema(field: TField): z.ZodType {
  if (field.name === NOTABLE_SIGNALS) {
    return z.array(z.string()).describe(field.description);
  }
  const description = describeForModel(field);
  switch (field.type) {
    case "number":
      return z.number().nullable().describe(description);
    case "integer":
      return z.number().int().nullable().describe(description);
    case "string":
      return z.string().nullable().describe(description);
    case "boolean":
      return z.boolean().nullable().describe(description);
    case "enum":
      return z
        .enum((field.enumValues ?? []) as [string, ...string[]])
        .nullable()
        .describe(description);
    case "string_list":
      return z.array(z.string()).nullable().describe(description);
    case "money":
      return z
        .strictObject({
          amount: z.number().describe("The amount as a plain number, e.g. 1299.5"),
          currency: z
            .string()
            .regex(/^[A-Z]{3}$/, "currency must be a 3-letter ISO 4217 code")
            .describe(`ISO 4217 code of the amount as shown (normally ${field.currency})`),
        })
        .nullable()
        .describe(description);
  }
}

function describeForModel(field: TField): string {
  const parts = [field.description];
  if (field.unit) parts.push(`Unit: ${field.unit}.`);
  if (field.type === "money" && field.currency) parts.push(`Currency: ${field.currency}.`);
  parts.push("null when the page does not show it.");
  return parts.join(" ");
}

import { z } from "zod";

/**
 * A definition's fields and their extractors (docs/design.md §3): the shape people, the drafting agent and API clients
 * write, shared with the browser. The server checks extractors further where only it can (a CSS selector parses, a
 * regex runs on the linear-time engine): server/intelligence/definition/field-schema.ts.
 */

/** The reserved escape-hatch field every tracker has; never declared by a definition. */
export const NOTABLE_SIGNALS = "notable_signals" as const;

export const FIELD_TYPES = ["number", "integer", "string", "boolean", "enum", "string_list", "money"] as const;
export const NUMERIC_FIELD_TYPES = ["number", "integer", "money"] as const;

export const ZFieldNameSchema = z
  .string()
  .min(1, "a field name cannot be empty")
  .max(48, "a field name can have at most 48 characters")
  .regex(
    /^[a-z][a-z0-9_]*$/,
    "a field name must be snake_case: lowercase letters, digits and _, starting with a letter",
  )
  .refine((name) => name !== NOTABLE_SIGNALS, {
    message: `"${NOTABLE_SIGNALS}" is reserved: every tracker already has it`,
  })
  .describe("snake_case identifier of the field, e.g. review_count");

export const ZFieldTypeSchema = z
  .enum(FIELD_TYPES)
  .describe(
    "number: decimal; integer: whole number; string: short text; boolean: explicit yes/no; enum: one of enumValues; string_list: list of short texts; money: amount + currency",
  );

export const ZJsonPointerExtractorSchema = z
  .strictObject({
    kind: z.literal("json_pointer"),
    pointer: z
      .string()
      .max(500)
      .regex(/^(\/([^~]|~[01])*)*$/, 'a JSON pointer is "" or starts with "/" (RFC 6901; escape ~ as ~0 and / as ~1)')
      .describe('RFC 6901 pointer into the capability\'s JSON result, e.g. "/rating" or "/offers/0/price"'),
  })
  .describe("Read the value from the capability's JSON result");

export const ZCssExtractorSchema = z
  .strictObject({
    kind: z.literal("css"),
    selector: z
      .string()
      .min(1)
      .max(300)
      .describe('CSS selector into the page HTML, e.g. "span.price"; lists take every match'),
    attribute: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe("Read this attribute instead of the element's text, e.g. content"),
  })
  .describe("Read the value from the page HTML with a CSS selector");

export const ZRegexExtractorSchema = z
  .strictObject({
    kind: z.literal("regex"),
    pattern: z
      .string()
      .min(1)
      .describe(
        "Regular expression run against the page's main text, JavaScript-style syntax on a linear-time engine (RE2): no lookahead/lookbehind, no backreferences",
      ),
    flags: z.string().max(4).optional().describe("Any of i, m, s, u"),
    group: z
      .union([z.number().int().min(0).max(20), z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)])
      .optional()
      .describe("Capture group number or name to read; default: group 1 if the pattern has groups, else the match"),
  })
  .describe("Read the value from the page's main text with a regular expression");

/** The extractor union over the given css and regex schemas: the contract's, or the server's checked ones. */
export function extractorUnion(css: typeof ZCssExtractorSchema, regex: typeof ZRegexExtractorSchema) {
  return z
    .discriminatedUnion("kind", [ZJsonPointerExtractorSchema, css, regex])
    .describe("Optional deterministic extractor: when present, code fills this field and the model never sees it");
}

export const ZExtractorSchema = extractorUnion(ZCssExtractorSchema, ZRegexExtractorSchema);

export const ZFieldSchema = z
  .strictObject({
    name: ZFieldNameSchema,
    type: ZFieldTypeSchema,
    description: z
      .string()
      .trim()
      .min(1, "a field needs a description")
      .max(500)
      .describe("What the field means, in plain language; the fill model reads this"),
    unit: z.string().trim().min(1).max(32).optional().describe('Unit for numbers, e.g. "stars", "reviews", "minutes"'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'a currency is a 3-letter ISO 4217 code such as "USD"')
      .optional()
      .describe("ISO 4217 currency code; required for money fields"),
    enumValues: z
      .array(z.string().trim().min(1).max(100))
      .min(1)
      .max(50)
      .optional()
      .describe("The allowed values; required for enum fields"),
    extractor: ZExtractorSchema.optional(),
  })
  .superRefine((field, ctx) => {
    if (field.type === "money" && !field.currency) {
      ctx.addIssue({
        code: "custom",
        path: ["currency"],
        message: 'a money field needs a currency (ISO 4217, e.g. "USD")',
      });
    }
    if (field.type !== "money" && field.currency) {
      ctx.addIssue({ code: "custom", path: ["currency"], message: "only money fields have a currency" });
    }
    if (field.type === "enum" && !field.enumValues) {
      ctx.addIssue({ code: "custom", path: ["enumValues"], message: "an enum field needs enumValues" });
    }
    if (field.type !== "enum" && field.enumValues) {
      ctx.addIssue({ code: "custom", path: ["enumValues"], message: "only enum fields have enumValues" });
    }
    if (field.enumValues && new Set(field.enumValues).size !== field.enumValues.length) {
      ctx.addIssue({ code: "custom", path: ["enumValues"], message: "enumValues must be unique" });
    }
  })
  .describe("One typed field the tracker watches");

export type TFieldType = z.infer<typeof ZFieldTypeSchema>;
export type TExtractor = z.infer<typeof ZExtractorSchema>;
export type TField = z.infer<typeof ZFieldSchema>;

export function isNumericFieldType(type: TFieldType): boolean {
  return (NUMERIC_FIELD_TYPES as readonly string[]).includes(type);
}

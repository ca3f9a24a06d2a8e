import { z } from "zod";

/**
 * Values bound from the person's context files and the code rules that compare against them (docs/design.md §3 "Context
 * files", docs/context-files.md): `our_price` read from "our price is 10.00" or a CSV cell makes "material when their price drops
 * below ours" a decision code takes, reproducibly, with no model call.
 */
export const ZContextValueSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,39}$/, "a value name is lower_snake_case, e.g. our_price")
      .describe("The name rules use, e.g. our_price"),
    label: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .describe(
        'What the file calls it: the words before the number on a line ("our price" matches "our price is 10.00"), or, with `column`, the CSV row\'s label ("Pro")',
      ),
    column: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'CSV only: the header of the column that holds the value ("price"); the row is the one labelled `label`',
      ),
    file: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("The context file to read it from (its name); any of the tracker's files when omitted"),
  })
  .describe("A number read from one of the tracker's context files whenever a change is judged");
export type TContextValue = z.infer<typeof ZContextValueSchema>;

export const ZContextRuleSchema = z
  .strictObject({
    field: z.string().describe("The numeric or money field the rule watches"),
    value: z.string().describe("The bound value it compares with (a contextValues name)"),
    when: z
      .enum(["drops_below", "rises_above"])
      .describe(
        "drops_below: material when the field goes from at or above the value to below it; rises_above: from at or below to above",
      ),
  })
  .describe(
    "Decided by code: material when the field crosses a value from a context file; otherwise the field's own rule decides",
  );
export type TContextRule = z.infer<typeof ZContextRuleSchema>;

/** "price: material when it drops below our_price (“our price” in your context files)". */
export function describeContextRule(rule: TContextRule, values: readonly TContextValue[] = []): string {
  const verb = rule.when === "drops_below" ? "drops below" : "rises above";
  const bound = values.find((v) => v.name === rule.value);
  const where = bound
    ? `“${bound.column ? `${bound.label}, ${bound.column}` : bound.label}” in ${bound.file ?? "your context files"}`
    : "from your context files";
  return `${rule.field}: material when it ${verb} ${rule.value} (${where})`;
}

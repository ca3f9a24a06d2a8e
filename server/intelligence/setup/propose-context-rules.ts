import { describeContextRule } from "@/contracts/definition/context-rule-schema";
import { findLabelledNumber } from "../../context";
import { isNumericFieldType, type TTrackerDefinition } from "../definition";

/**
 * Rules mode's proposal when files are attached while drafting (docs/context-files.md): for each number or money field, a line
 * in one of the tracker's files stating "our <field> is N" ("our price is 10.00") binds `our_<field>` from that file
 * and adds "material when it drops below our_<field>". Fields that already have a context rule are left alone.
 * Deterministic; null when nothing matches.
 */
export function proposeContextRules(
  definition: TTrackerDefinition,
  files: readonly { name: string; text: string }[],
): { definition: TTrackerDefinition; said: string[] } | null {
  const values = [...(definition.contextValues ?? [])];
  const rules = [...(definition.contextRules ?? [])];
  const said: string[] = [];
  for (const field of definition.fields) {
    if (!isNumericFieldType(field.type) || rules.some((r) => r.field === field.name)) continue;
    const label = `our ${field.name.replace(/_/g, " ")}`;
    const name = `our_${field.name}`.slice(0, 40);
    if (values.some((v) => v.name === name)) continue;
    for (const file of files) {
      const found = findLabelledNumber(file.text, label);
      if (!found) continue;
      const value = { name, label, file: file.name };
      const rule = { field: field.name, value: name, when: "drops_below" as const };
      values.push(value);
      rules.push(rule);
      said.push(`Your file “${file.name}” says “${found.quote}”, so I added ${describeContextRule(rule, [value])}.`);
      break;
    }
  }
  if (said.length === 0) return null;
  return { definition: { ...definition, contextValues: values, contextRules: rules }, said };
}

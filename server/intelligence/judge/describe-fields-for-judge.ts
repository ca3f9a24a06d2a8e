import { effectiveFields, ruleForField } from "../definition/reserved-fields";
import type { TTrackerDefinition } from "../definition/tracker-definition-schema";

/**
 * fieldDescriptions for judgeDeltas, from the locked definition: the field's description, unit or
 * currency, and the ask_agent guidance the user gave ("rewording is noise"), if any.
 */
export function describeFieldsForJudge(
  def: TTrackerDefinition,
  fieldNames?: readonly string[],
): Record<string, string> {
  const wanted = fieldNames ? new Set(fieldNames) : null;
  const out: Record<string, string> = {};
  for (const field of effectiveFields(def)) {
    if (wanted && !wanted.has(field.name)) continue;
    const rule = ruleForField(def, field.name);
    const parts = [`${field.description} (${field.type}`];
    if (field.unit) parts[0] += `, unit: ${field.unit}`;
    if (field.currency) parts[0] += `, currency: ${field.currency}`;
    parts[0] += ")";
    if (rule.kind === "ask_agent" && rule.guidance) parts.push(`User's guidance: ${rule.guidance}`);
    out[field.name] = parts.join(". ");
  }
  return out;
}

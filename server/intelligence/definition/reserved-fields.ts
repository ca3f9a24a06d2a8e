import { DEFAULT_RULE, type TMaterialityRule } from "@/contracts/definition/materiality-rule-schema";
import { NOTABLE_SIGNALS, type TField } from "./field-schema";
import type { TTrackerDefinition } from "./tracker-definition-schema";

/** Caps that keep the escape hatch an escape hatch, applied by code after validation. */
export const MAX_NOTABLE_SIGNALS = 20;
export const MAX_NOTABLE_SIGNAL_CHARS = 200;

export const NOTABLE_SIGNALS_FIELD: TField = {
  name: NOTABLE_SIGNALS,
  type: "string_list",
  description:
    "Short notes (one sentence each) about observations relevant to the decision that no other field captures; empty when there are none",
};

/** The fields a record actually has: the declared ones plus the reserved notable_signals, last. */
export function effectiveFields(definition: TTrackerDefinition): TField[] {
  return [...definition.fields, NOTABLE_SIGNALS_FIELD];
}

/** The rule that applies to a field: explicit, else ask_agent; notable_signals is always ask_agent. */
export function ruleForField(definition: TTrackerDefinition, fieldName: string): TMaterialityRule {
  if (fieldName === NOTABLE_SIGNALS) return DEFAULT_RULE;
  return definition.materiality[fieldName] ?? DEFAULT_RULE;
}

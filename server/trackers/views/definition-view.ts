import type { TDefinitionFieldView } from "@/contracts/trackers";
import {
  describeContextRule,
  describeRule,
  effectiveFields,
  ruleForField,
  type TTrackerDefinition,
} from "../../intelligence/definition";

export type { TDefinitionFieldView, TDefinitionVersionView } from "@/contracts/trackers";

/** A definition version described for people: field types, and each field's rule in plain language. */
export function describeDefinition(version: number, definition: TTrackerDefinition) {
  return {
    version,
    identityRule: definition.identityRule.kind,
    fields: effectiveFields(definition).map((field) => ({
      name: field.name,
      type: field.type === "money" && field.currency ? `money (${field.currency})` : field.type,
      description: field.description,
      // Context rules (issue 16) are checked first, so they read first.
      rule: [
        ...(definition.contextRules ?? [])
          .filter((r) => r.field === field.name)
          .map((r) => describeContextRule(r, definition.contextValues)),
        describeRule(field, ruleForField(definition, field.name)),
      ].join("; "),
      format: {
        type: field.type,
        ...(field.unit ? { unit: field.unit } : {}),
        ...(field.currency ? { currency: field.currency } : {}),
      },
    })),
  };
}

type TComparedField = Pick<TDefinitionFieldView, "name" | "type" | "description" | "rule">;

/** Readable differences between two versions' fields: added, removed, retyped, rule changed. */
export function diffDefinitionViews(older: TComparedField[], newer: TComparedField[]): string[] {
  const before = new Map(older.map((f) => [f.name, f]));
  const after = new Map(newer.map((f) => [f.name, f]));
  const out: string[] = [];
  for (const [name, f] of after) {
    const old = before.get(name);
    if (!old) out.push(`added ${name} (${f.type})`);
    else {
      if (old.type !== f.type) out.push(`${name}: type ${old.type} → ${f.type}`);
      if (old.rule !== f.rule) out.push(`rule changed — ${f.rule} (was: ${old.rule})`);
      if (old.description !== f.description) out.push(`${name}: description reworded`);
    }
  }
  for (const name of before.keys()) if (!after.has(name)) out.push(`removed ${name}`);
  return out;
}

import { formatFieldValue, type TValueFormat } from "@/contracts/definition/format-value";
import type { TDefinitionFieldView, TKeptContextValueView } from "@/contracts/trackers";
import type { TResolvedContextValue } from "../../context";
import {
  describeContextRule,
  describeNotableSignals,
  describeRule,
  effectiveFields,
  NOTABLE_SIGNALS,
  ruleForField,
  type TJudgeMode,
  type TTrackerDefinition,
} from "../../intelligence/definition";
import { currentJudgeMode } from "../../intelligence/judge/judge-mode";

export type { TDefinitionFieldView, TDefinitionVersionView } from "@/contracts/trackers";

/**
 * A definition version described for people: field types, and each field's rule in plain language — a field left to
 * the agent as `judge` really decides it (the server's mode unless given). `kept`: bound values its rules decide with
 * although their file went (the version in force only), shown beside those rules.
 */
export function describeDefinition(
  version: number,
  definition: TTrackerDefinition,
  kept: Record<string, TResolvedContextValue> = {},
  judge: TJudgeMode = currentJudgeMode(),
) {
  return {
    version,
    identityRule: definition.identityRule.kind,
    fields: effectiveFields(definition).map((field) => {
      const format: TValueFormat = {
        type: field.type,
        ...(field.unit ? { unit: field.unit } : {}),
        ...(field.currency ? { currency: field.currency } : {}),
      };
      const contextRules = (definition.contextRules ?? []).filter((r) => r.field === field.name);
      const keptHere = [...new Set(contextRules.map((r) => r.value))].flatMap((name): TKeptContextValueView[] => {
        const value = kept[name];
        return value?.kept
          ? [
              {
                name,
                value: formatFieldValue(value.value, format),
                fileName: value.fileName,
                reason: value.kept.reason,
                since: value.kept.since ? new Date(value.kept.since) : null,
              },
            ]
          : [];
      });
      return {
        name: field.name,
        type: field.type === "money" && field.currency ? `money (${field.currency})` : field.type,
        description: field.description,
        // Context rules are checked first (docs/context-files.md), so they read first.
        rule: [
          ...contextRules.map((r) => describeContextRule(r, definition.contextValues)),
          // Nothing fills notable_signals in rules mode, whatever its rule: it says so, as the draft card does.
          field.name === NOTABLE_SIGNALS && judge === "rules"
            ? describeNotableSignals(judge)
            : describeRule(field, ruleForField(definition, field.name), judge),
        ].join("; "),
        format,
        ...(keptHere.length ? { kept: keptHere } : {}),
      };
    }),
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

import { formatMeasuredPercent, formatNumber, formatPercent, formatSigned } from "@/contracts/definition/format-number";
import type { TNumericRule } from "@/contracts/definition/materiality-rule-schema";
import { NOTABLE_SIGNALS, type TField } from "../definition/field-schema";
import { isMoney, type TRecordValue } from "../definition/record-types";
import { effectiveFields, ruleForField } from "../definition/reserved-fields";
import type { TTrackerDefinition } from "../definition/tracker-definition-schema";
import type { TDeltas } from "../diff/diff-records";
import type { TCodeVerdict } from "./verdict-types";

/**
 * Applies each field's deterministic rule to its delta — free and reproducible. Deltas no rule can
 * decide (ask_agent, notable_signals, a value appearing/disappearing under a numeric rule, a currency
 * switch) come back "undecided" for the judge. Deltas for fields not in the definition are skipped.
 */
export function evaluateDeltas(deltas: TDeltas, def: TTrackerDefinition): Record<string, TCodeVerdict> {
  const fields = new Map(effectiveFields(def).map((f) => [f.name, f]));
  const verdicts: Record<string, TCodeVerdict> = {};
  for (const [name, delta] of Object.entries(deltas)) {
    const field = fields.get(name);
    if (!field) continue;
    const rule = ruleForField(def, name);
    const decide = (verdict: TCodeVerdict["verdict"], reason: string): TCodeVerdict => ({
      verdict,
      decidedBy: "code",
      rule,
      reason,
    });
    switch (rule.kind) {
      case "ignore":
        verdicts[name] = decide("noise", `${name}: ignored by rule → noise`);
        break;
      case "any_change":
        verdicts[name] = decide("material", `${name}: changed, any change counts → material`);
        break;
      case "ask_agent":
        verdicts[name] = decide(
          "undecided",
          name === NOTABLE_SIGNALS
            ? `${name}: new signal(s) → the agent decides`
            : `${name}: no code rule → the agent decides`,
        );
        break;
      case "numeric":
        verdicts[name] = evaluateNumeric(field, rule, delta.from, delta.to, decide);
        break;
    }
  }
  return verdicts;
}

function evaluateNumeric(
  field: TField,
  rule: TNumericRule,
  fromValue: TRecordValue,
  toValue: TRecordValue,
  decide: (verdict: TCodeVerdict["verdict"], reason: string) => TCodeVerdict,
): TCodeVerdict {
  const name = field.name;
  const from = amountOf(fromValue);
  const to = amountOf(toValue);
  if (from === null || to === null) {
    const what = from === null && to === null ? "is not a number" : from === null ? "appeared" : "disappeared";
    return decide("undecided", `${name}: value ${what} — the numeric rule cannot compare → the agent decides`);
  }
  if (from.currency !== to.currency) {
    return decide("undecided", `${name}: currency changed ${from.currency} → ${to.currency} → the agent decides`);
  }

  // Round the delta so float noise (0.3 − 0.1 = 0.19999…) never flips a verdict at the threshold.
  const delta = round(to.amount - from.amount);
  const direction = rule.direction ?? "any";
  if ((direction === "up" && delta < 0) || (direction === "down" && delta > 0)) {
    const move = delta < 0 ? "a drop" : "a rise";
    const watched = direction === "up" ? "rises" : "drops";
    return decide("noise", `${name}: ${formatSigned(delta)} is ${move}; only ${watched} count → noise`);
  }

  const magnitude = Math.abs(delta);
  const checks: { hit: boolean; text: string }[] = [];
  if (rule.absolute !== undefined) {
    const hit = magnitude >= round(rule.absolute);
    checks.push({ hit, text: `${formatSigned(delta)} ${hit ? "≥" : "<"} ${formatNumber(rule.absolute)}` });
  }
  if (rule.relative !== undefined) {
    // From 0 any move is an infinite relative move.
    const ratio =
      from.amount === 0 ? (magnitude === 0 ? 0 : Number.POSITIVE_INFINITY) : round(magnitude / Math.abs(from.amount));
    const hit = ratio >= round(rule.relative);
    const shown = Number.isFinite(ratio)
      ? `${delta < 0 ? "−" : "+"}${formatMeasuredPercent(ratio, rule.relative)}`
      : "from 0";
    checks.push({ hit, text: `${shown} ${hit ? "≥" : "<"} ${formatPercent(rule.relative)}` });
  }
  // "both" needs every threshold crossed; "either" (the default, also for rules locked before `combine`) one.
  const both = rule.combine === "both" && checks.length > 1;
  const material = both ? checks.every((c) => c.hit) : checks.some((c) => c.hit);
  const shown = material && !both ? checks.filter((c) => c.hit) : checks;
  const joined = shown.map((c) => c.text).join(" and ");
  const note = both && !material ? " (both must be crossed)" : "";
  return decide(material ? "material" : "noise", `${name}: ${joined}${note} → ${material ? "material" : "noise"}`);
}

function amountOf(value: TRecordValue): { amount: number; currency: string } | null {
  if (typeof value === "number" && Number.isFinite(value)) return { amount: value, currency: "" };
  if (isMoney(value) && Number.isFinite(value.amount))
    return { amount: value.amount, currency: value.currency.toUpperCase() };
  return null;
}

function round(value: number): number {
  return Number(value.toPrecision(12));
}

import { formatNumber, formatPercent } from "./format-number";
import { DEFAULT_RULE, type TMaterialityRule } from "./materiality-rule-schema";

/** Who decides a change no code rule decides: the judge model, or — none configured — the rules-mode fallback. */
export type TJudgeMode = "agent" | "rules";

/**
 * The reserved notable_signals field as it really works: the model's fill notes there what no field captures and the
 * agent judges it; in rules mode nothing fills it (fill/fallback.ts), so it stays empty (docs/design.md §3).
 */
export function describeNotableSignals(judge: TJudgeMode): string {
  return judge === "agent"
    ? "notable_signals: the agent decides (always present)"
    : "notable_signals: stays empty — no AI is configured to note what the fields above miss";
}

/** What a rule description needs of a field (a TField fits). */
type TRuleField = { name: string; unit?: string | undefined; currency?: string | undefined };

/**
 * One plain-language line per rule for the setup UI:
 * "rating: material when it moves by 0.2 or more", "price: material on a 5% move or more",
 * "description: the agent decides"; with both thresholds it says whether either or both must be crossed. A field left
 * to the agent is described as `judge` really decides it: in rules mode the fallback judge records every change of it
 * as notable, for the person to review (docs/design.md §3), whatever guidance was written for a model.
 */
export function describeRule(
  field: TRuleField,
  rule: TMaterialityRule = DEFAULT_RULE,
  judge: TJudgeMode = "agent",
): string {
  const name = field.name;
  if (rule.kind === "ask_agent" && judge === "rules") {
    return `${name}: any change is recorded as notable, for your review (no AI configured)`;
  }
  switch (rule.kind) {
    case "ignore":
      return `${name}: ignored — changes are never flagged`;
    case "any_change":
      return `${name}: material on any change`;
    case "ask_agent":
      return rule.guidance ? `${name}: the agent decides — “${rule.guidance}”` : `${name}: the agent decides`;
    case "numeric": {
      const direction = rule.direction ?? "any";
      const unit = field.unit ?? field.currency;
      const absolute = rule.absolute === undefined ? null : `${formatNumber(rule.absolute)}${unit ? ` ${unit}` : ""}`;
      const relative = rule.relative === undefined ? null : formatPercent(rule.relative);
      const tail = direction === "up" ? " (drops are noise)" : direction === "down" ? " (rises are noise)" : "";
      if (absolute && relative) {
        // Says which combination counts: "either" is the default, also for rules locked before `combine`.
        const verb = direction === "up" ? "rises" : direction === "down" ? "falls" : "moves";
        return rule.combine === "both"
          ? `${name}: material when it ${verb} both by ${absolute} or more and by ${relative} or more${tail}`
          : `${name}: material when it ${verb} either by ${absolute} or more or by ${relative} or more${tail}`;
      }
      if (absolute) {
        const verb = direction === "up" ? "rises" : direction === "down" ? "falls" : "moves";
        return `${name}: material when it ${verb} by ${absolute} or more${tail}`;
      }
      const move = direction === "up" ? "rise" : direction === "down" ? "drop" : "move";
      return `${name}: material on a ${relative} ${move} or more${tail}`;
    }
  }
}

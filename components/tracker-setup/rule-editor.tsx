"use client";

import {
  isNumericType,
  previewRule,
  RULE_KIND_LABELS,
  RULE_KINDS,
  setThresholdMode,
  setThresholdValue,
  type TFieldForm,
  THRESHOLD_MODE_LABELS,
  THRESHOLD_MODES,
  type TRuleForm,
} from "./card-edits";
import { fieldInput as input, fieldLabel as labelText } from "./field-editor-styles";

type TProps = {
  /** The editor's id prefix (useId), so labels stay unique on a card with several editors. */
  id: string;
  field: TFieldForm;
  rule: TRuleForm;
  setRule: (update: (rule: TRuleForm) => TRuleForm) => void;
  /** A model is configured; else "ask the agent" means the rules-mode fallback flags every change for review. */
  aiOn: boolean;
};

/**
 * The rule half of the field editor: which kind of rule, a numeric rule's thresholds (amount, percentage or both,
 * and the direction) or the agent's guidance — and the rule in words as it is being written.
 */
export function RuleEditor({ id, field, rule, setRule, aiOn }: TProps) {
  const numeric = isNumericType(field.type);
  const thresholdUnit = field.type === "money" ? field.currency.trim().toUpperCase() : field.unit.trim();
  const absoluteLabel = `Amount${thresholdUnit ? ` (${thresholdUnit})` : ""}`;
  return (
    <fieldset className="space-y-2">
      <legend className={labelText}>What counts as a change that matters</legend>
      <div>
        <label htmlFor={`${id}-rule`} className="sr-only">
          Rule
        </label>
        <select
          id={`${id}-rule`}
          className={input}
          value={rule.kind}
          onChange={(e) => setRule((r) => ({ ...r, kind: e.target.value as TRuleForm["kind"] }))}
        >
          {RULE_KINDS.map((kind) => (
            <option key={kind} value={kind} disabled={kind === "numeric" && !numeric}>
              {RULE_KIND_LABELS[kind]}
              {kind === "numeric" && !numeric ? " (numbers only)" : ""}
              {kind === "ask_agent" && !aiOn ? " (AI off)" : ""}
            </option>
          ))}
        </select>
      </div>
      {rule.kind === "numeric" ? (
        <div className="space-y-2" data-testid="threshold-editor">
          <fieldset>
            <legend className={labelText}>Material when the move crosses</legend>
            <div className="mt-1 flex flex-wrap gap-x-3 gap-y-1" data-testid="threshold-mode">
              {THRESHOLD_MODES.map((mode) => (
                <label key={mode} className="inline-flex items-center gap-1 text-sm">
                  <input
                    type="radio"
                    name={`${id}-threshold`}
                    value={mode}
                    checked={rule.threshold === mode}
                    onChange={() => setRule((r) => setThresholdMode(r, mode))}
                  />
                  {THRESHOLD_MODE_LABELS[mode]}
                </label>
              ))}
            </div>
          </fieldset>
          <div className="grid grid-cols-2 gap-2">
            <div>
              <label htmlFor={`${id}-absolute`} className={labelText}>
                {absoluteLabel}
              </label>
              <input
                id={`${id}-absolute`}
                className={input}
                inputMode="decimal"
                value={rule.absolute}
                onChange={(e) => setRule((r) => setThresholdValue(r, "absolute", e.target.value))}
                autoComplete="off"
              />
            </div>
            <div>
              <label htmlFor={`${id}-relative`} className={labelText}>
                Percentage (%)
              </label>
              <input
                id={`${id}-relative`}
                className={input}
                inputMode="decimal"
                value={rule.relativePercent}
                onChange={(e) => setRule((r) => setThresholdValue(r, "relative", e.target.value))}
                autoComplete="off"
              />
            </div>
          </div>
          <div>
            <label htmlFor={`${id}-direction`} className={labelText}>
              Direction
            </label>
            <select
              id={`${id}-direction`}
              className={input}
              value={rule.direction}
              onChange={(e) => setRule((r) => ({ ...r, direction: e.target.value as TRuleForm["direction"] }))}
            >
              <option value="any">up or down</option>
              <option value="up">only rises</option>
              <option value="down">only drops</option>
            </select>
          </div>
        </div>
      ) : null}
      {rule.kind === "ask_agent" ? (
        <div>
          <label htmlFor={`${id}-guidance`} className={labelText}>
            {aiOn ? "Guidance for the agent (optional)" : "Guidance for when AI is on (optional)"}
          </label>
          <input
            id={`${id}-guidance`}
            className={input}
            value={rule.guidance}
            onChange={(e) => setRule((r) => ({ ...r, guidance: e.target.value }))}
            placeholder="rewording is noise; a new plan is material"
            autoComplete="off"
          />
        </div>
      ) : null}
      <p className="text-xs text-stone-700 dark:text-stone-300" data-testid="rule-preview" aria-live="polite">
        {previewRule(field, rule, aiOn ? "agent" : "rules")}
      </p>
    </fieldset>
  );
}

"use client";

import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import type { TMaterialityRule } from "@/contracts/definition/materiality-rule-schema";
import type { TField } from "@/server/intelligence/definition/field-schema";
import {
  CARD_FIELD_TYPES,
  FIELD_TYPE_LABELS,
  formToField,
  formToRule,
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

type TProps = {
  /** "add" shows the name input; an existing field keeps its name. */
  mode: "edit" | "add";
  initialField: TFieldForm;
  initialRule: TRuleForm;
  /** The field being edited: its extractor and other properties are kept. */
  base?: TField;
  /** Saves through the server; rejects with a readable message when the result does not validate. */
  onSubmit: (field: TField, rule: TMaterialityRule) => Promise<void>;
  onCancel: () => void;
};

const input =
  "w-full min-w-0 rounded border border-stone-300 bg-transparent px-2 py-1 text-sm dark:border-stone-700 dark:bg-stone-950";
const labelText = "block text-xs font-medium text-stone-600 dark:text-stone-400";

/**
 * Inline, keyboard-first editor for one field and its materiality rule (Enter saves, Escape cancels).
 * Laid out by the width of the card, not the window (a container query): one column where the card is
 * narrow — a phone, or the card beside the chat — so no select is cut off.
 */
export function FieldEditor({ mode, initialField, initialRule, base, onSubmit, onCancel }: TProps) {
  const id = useId();
  const [field, setField] = useState(initialField);
  const [rule, setRule] = useState(initialRule);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const firstRef = useRef<HTMLInputElement & HTMLSelectElement>(null);

  useEffect(() => {
    firstRef.current?.focus();
  }, []);

  const setType = (type: TFieldForm["type"]) => {
    setField((f) => ({ ...f, type }));
    // A threshold only makes sense on numbers: fall back to the agent, visibly (the preview says so).
    if (!isNumericType(type) && rule.kind === "numeric") setRule((r) => ({ ...r, kind: "ask_agent" }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (saving) return;
    const parsedRule = formToRule(rule);
    if (!parsedRule.ok) {
      setError(parsedRule.error);
      return;
    }
    setError(null);
    setSaving(true);
    try {
      await onSubmit(formToField(field, base), parsedRule.rule);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setSaving(false);
    }
  };

  const numeric = isNumericType(field.type);
  const thresholdUnit = field.type === "money" ? field.currency.trim().toUpperCase() : field.unit.trim();
  const absoluteLabel = `Amount${thresholdUnit ? ` (${thresholdUnit})` : ""}`;
  const title = mode === "add" ? "New field" : `Edit ${field.name}`;

  return (
    <form
      onSubmit={(e) => void submit(e)}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onCancel();
        }
      }}
      aria-label={title}
      data-testid={mode === "add" ? "add-field-form" : "field-edit-form"}
      className="@container mt-2 space-y-2 rounded-md border border-stone-200 bg-stone-50 p-3 dark:border-stone-700 dark:bg-stone-950"
    >
      {mode === "add" ? (
        <div>
          <label htmlFor={`${id}-name`} className={labelText}>
            Name (snake_case)
          </label>
          <input
            id={`${id}-name`}
            ref={firstRef}
            className={`${input} font-mono`}
            value={field.name}
            onChange={(e) => setField((f) => ({ ...f, name: e.target.value }))}
            placeholder="annual_price"
            autoComplete="off"
            required
          />
        </div>
      ) : null}
      <div className="grid grid-cols-1 gap-2 @sm:grid-cols-2">
        <div>
          <label htmlFor={`${id}-type`} className={labelText}>
            Type
          </label>
          <select
            id={`${id}-type`}
            ref={mode === "edit" ? firstRef : undefined}
            className={input}
            value={field.type}
            onChange={(e) => setType(e.target.value as TFieldForm["type"])}
          >
            {CARD_FIELD_TYPES.map((t) => (
              <option key={t} value={t}>
                {FIELD_TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </div>
        {field.type === "money" ? (
          <div>
            <label htmlFor={`${id}-currency`} className={labelText}>
              Currency (ISO code)
            </label>
            <input
              id={`${id}-currency`}
              className={`${input} uppercase`}
              value={field.currency}
              onChange={(e) => setField((f) => ({ ...f, currency: e.target.value }))}
              placeholder="USD"
              maxLength={3}
              autoComplete="off"
            />
          </div>
        ) : (
          <div>
            <label htmlFor={`${id}-unit`} className={labelText}>
              Unit (optional)
            </label>
            <input
              id={`${id}-unit`}
              className={input}
              value={field.unit}
              onChange={(e) => setField((f) => ({ ...f, unit: e.target.value }))}
              placeholder={numeric ? "stars, reviews, minutes…" : ""}
              autoComplete="off"
            />
          </div>
        )}
      </div>
      {field.type === "enum" ? (
        <div>
          <label htmlFor={`${id}-enum`} className={labelText}>
            Allowed values (comma-separated)
          </label>
          <input
            id={`${id}-enum`}
            className={input}
            value={field.enumValues}
            onChange={(e) => setField((f) => ({ ...f, enumValues: e.target.value }))}
            placeholder="in stock, sold out"
            autoComplete="off"
          />
        </div>
      ) : null}
      <div>
        <label htmlFor={`${id}-description`} className={labelText}>
          Description
        </label>
        <input
          id={`${id}-description`}
          className={input}
          value={field.description}
          onChange={(e) => setField((f) => ({ ...f, description: e.target.value }))}
          autoComplete="off"
        />
      </div>
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
              Guidance for the agent (optional)
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
          {previewRule(field, rule)}
        </p>
      </fieldset>
      {error ? (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400" data-testid="card-edit-error">
          {error}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={buttonPrimary} disabled={saving}>
          {saving ? "Saving…" : mode === "add" ? "Add field" : "Save"}
        </button>
        <button type="button" className={buttonSecondary} onClick={onCancel} disabled={saving}>
          Cancel
        </button>
      </div>
    </form>
  );
}

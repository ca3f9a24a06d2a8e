"use client";

import { useEffect, useId, useRef } from "react";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import type { TField } from "@/contracts/definition/field-schema";
import type { TMaterialityRule } from "@/contracts/definition/materiality-rule-schema";
import { CARD_FIELD_TYPES, FIELD_TYPE_LABELS, isNumericType, type TFieldForm, type TRuleForm } from "./card-edits";
import { fieldInput as input, fieldLabel as labelText } from "./field-editor-styles";
import { RuleEditor } from "./rule-editor";
import { useFieldEditor } from "./use-field-editor";

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
  /** A model is configured (rules mode otherwise): how "ask the agent" is described. */
  aiOn: boolean;
};

/**
 * Inline, keyboard-first editor for one field and its materiality rule (Enter saves, Escape cancels).
 * Laid out by the width of the card, not the window (a container query): one column where the card is
 * narrow — a phone, or the card beside the chat — so no select is cut off.
 */
export function FieldEditor({ mode, initialField, initialRule, base, onSubmit, onCancel, aiOn }: TProps) {
  const id = useId();
  const { field, setField, rule, setRule, error, saving, setType, submit } = useFieldEditor({
    initialField,
    initialRule,
    base,
    onSubmit,
  });
  const firstRef = useRef<HTMLInputElement & HTMLSelectElement>(null);
  useEffect(() => {
    firstRef.current?.focus();
  }, []);

  const numeric = isNumericType(field.type);
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
      <RuleEditor id={id} field={field} rule={rule} setRule={setRule} aiOn={aiOn} />
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

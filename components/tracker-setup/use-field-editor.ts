"use client";

import { type FormEvent, useState } from "react";
import type { TField } from "@/contracts/definition/field-schema";
import type { TMaterialityRule } from "@/contracts/definition/materiality-rule-schema";
import { formToField, formToRule, isNumericType, type TFieldForm, type TRuleForm } from "./card-edits";

/**
 * The field editor's state: the field and rule as typed, a type change that takes a threshold away from a field that
 * is no longer a number (visibly: the preview says so), and a save that checks the rule here and the whole
 * definition on the server, showing either refusal in the form.
 */
export function useFieldEditor(input: {
  initialField: TFieldForm;
  initialRule: TRuleForm;
  base?: TField | undefined;
  onSubmit: (field: TField, rule: TMaterialityRule) => Promise<void>;
}) {
  const { initialField, initialRule, base, onSubmit } = input;
  const [field, setField] = useState(initialField);
  const [rule, setRule] = useState(initialRule);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
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

  return { field, setField, rule, setRule, error, saving, setType, submit };
}

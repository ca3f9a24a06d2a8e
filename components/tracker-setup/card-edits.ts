/**
 * Direct edits on the draft card, as pure functions over the draft definition. They only reshape the
 * definition; the server validates every result with parseDefinition before anything is saved.
 * Imports stay client-safe: describe-rule and the schema types only (field-schema pulls an HTML parser).
 */
import { describeRule, type TJudgeMode } from "@/contracts/definition/describe-rule";
import type { TField, TFieldType } from "@/contracts/definition/field-schema";
import type { TMaterialityRule, TThresholdCombine } from "@/contracts/definition/materiality-rule-schema";

export const CARD_FIELD_TYPES = [
  "number",
  "integer",
  "string",
  "boolean",
  "enum",
  "string_list",
  "money",
] as const satisfies readonly TFieldType[];

export const FIELD_TYPE_LABELS: Record<TFieldType, string> = {
  number: "number (decimal)",
  integer: "integer (whole number)",
  string: "text",
  boolean: "yes / no",
  enum: "one of a list",
  string_list: "list of texts",
  money: "money (amount + currency)",
};

export const RULE_KINDS = ["numeric", "any_change", "ignore", "ask_agent"] as const;
export type TRuleKind = (typeof RULE_KINDS)[number];
export const RULE_KIND_LABELS: Record<TRuleKind, string> = {
  numeric: "when it moves by a threshold",
  any_change: "any change matters",
  ignore: "ignore changes",
  ask_agent: "ask the agent",
};

export type TCardDefinition = {
  fields: TField[];
  identityRule: unknown;
  materiality: Record<string, TMaterialityRule>;
} & Record<string, unknown>;

/** What the field form edits; numbers stay strings until saved so half-typed input is kept. */
export type TFieldForm = {
  name: string;
  type: TFieldType;
  description: string;
  unit: string;
  currency: string;
  /** Comma-separated. */
  enumValues: string;
};

/**
 * Which thresholds a numeric rule uses — stated, never implied (a relative default left behind
 * beside a typed amount would make every small move count). One threshold alone, or both combined.
 */
export const THRESHOLD_MODES = ["absolute", "relative", "either", "both"] as const;
export type TThresholdMode = (typeof THRESHOLD_MODES)[number];
export const THRESHOLD_MODE_LABELS: Record<TThresholdMode, string> = {
  absolute: "an amount only",
  relative: "a percentage only",
  either: "either one",
  both: "both",
};

export type TRuleForm = {
  kind: TRuleKind;
  /** Which of the two thresholds count; in "absolute"/"relative" the other one is kept empty. */
  threshold: TThresholdMode;
  absolute: string;
  /** In percent: "5" means 5%. */
  relativePercent: string;
  direction: "any" | "up" | "down";
  guidance: string;
};

export const EMPTY_FIELD_FORM: TFieldForm = {
  name: "",
  type: "number",
  description: "",
  unit: "",
  currency: "",
  enumValues: "",
};
export const DEFAULT_RULE_FORM: TRuleForm = {
  kind: "ask_agent",
  threshold: "absolute",
  absolute: "",
  relativePercent: "",
  direction: "any",
  guidance: "",
};

/** The saved draft definition as the card edits it, or null when there is none yet. */
export function asCardDefinition(value: unknown): TCardDefinition | null {
  if (!isRecord(value) || !Array.isArray(value.fields)) return null;
  const materiality = isRecord(value.materiality) ? (value.materiality as Record<string, TMaterialityRule>) : {};
  return { ...value, fields: value.fields as TField[], identityRule: value.identityRule, materiality };
}

export function isNumericType(type: string): boolean {
  return type === "number" || type === "integer" || type === "money";
}

export function fieldToForm(field: TField): TFieldForm {
  return {
    name: field.name,
    type: field.type,
    description: field.description ?? "",
    unit: field.unit ?? "",
    currency: field.currency ?? "",
    enumValues: (field.enumValues ?? []).join(", "),
  };
}

export function ruleToForm(rule: TMaterialityRule | undefined): TRuleForm {
  if (!rule) return DEFAULT_RULE_FORM;
  switch (rule.kind) {
    case "numeric":
      return {
        ...DEFAULT_RULE_FORM,
        kind: "numeric",
        threshold: thresholdModeOf(rule),
        absolute: rule.absolute === undefined ? "" : String(rule.absolute),
        relativePercent: rule.relative === undefined ? "" : String(Number((rule.relative * 100).toPrecision(10))),
        direction: rule.direction ?? "any",
      };
    case "ask_agent":
      return { ...DEFAULT_RULE_FORM, guidance: rule.guidance ?? "" };
    default:
      return { ...DEFAULT_RULE_FORM, kind: rule.kind };
  }
}

/** The mode a stored rule is in; a rule with both thresholds and no `combine` means "either". */
export function thresholdModeOf(rule: { absolute?: number; relative?: number; combine?: TThresholdCombine }) {
  if (rule.absolute !== undefined && rule.relative !== undefined) return rule.combine ?? "either";
  return rule.relative !== undefined ? "relative" : "absolute";
}

/**
 * Picking a mode. One threshold alone empties the other, so nothing unseen stays behind to count;
 * "either"/"both" keep what is typed in both.
 */
export function setThresholdMode(form: TRuleForm, threshold: TThresholdMode): TRuleForm {
  if (threshold === "absolute") return { ...form, threshold, relativePercent: "" };
  if (threshold === "relative") return { ...form, threshold, absolute: "" };
  return { ...form, threshold };
}

/**
 * Typing a threshold. In a one-threshold mode, typing the other one switches to it and empties the first:
 * setting an amount drops the drafted 1% unless the person chose "either" or "both".
 */
export function setThresholdValue(form: TRuleForm, which: "absolute" | "relative", text: string): TRuleForm {
  const next = which === "absolute" ? { ...form, absolute: text } : { ...form, relativePercent: text };
  if (form.threshold === "either" || form.threshold === "both" || form.threshold === which || !text.trim()) {
    return next;
  }
  return setThresholdMode(next, which);
}

/**
 * The rule a form describes, or an error for input that is not a number at all. Only the thresholds of
 * the chosen mode are used. Range checks (positive thresholds, at least one of them, both for
 * "either"/"both") are left to the server's schema so there is one source.
 */
export function formToRule(form: TRuleForm): { ok: true; rule: TMaterialityRule } | { ok: false; error: string } {
  switch (form.kind) {
    case "numeric": {
      const usesAbsolute = form.threshold !== "relative";
      const usesRelative = form.threshold !== "absolute";
      const absolute = usesAbsolute ? readNumber(form.absolute) : null;
      const relative = usesRelative ? readNumber(form.relativePercent) : null;
      if (absolute === "invalid") return { ok: false, error: "The amount must be a number." };
      if (relative === "invalid") return { ok: false, error: "The percentage must be a number." };
      const combined = form.threshold === "either" || form.threshold === "both";
      return {
        ok: true,
        rule: {
          kind: "numeric",
          ...(absolute === null ? {} : { absolute }),
          ...(relative === null ? {} : { relative: Number((relative / 100).toPrecision(12)) }),
          ...(form.direction === "any" ? {} : { direction: form.direction }),
          ...(combined ? { combine: form.threshold as TThresholdCombine } : {}),
        },
      };
    }
    case "ask_agent":
      return {
        ok: true,
        rule: form.guidance.trim() ? { kind: "ask_agent", guidance: form.guidance.trim() } : { kind: "ask_agent" },
      };
    default:
      return { ok: true, rule: { kind: form.kind } };
  }
}

/** The field a form describes: only the properties its type allows (currency for money, values for enum). */
export function formToField(form: TFieldForm, base?: TField): TField {
  const unit = form.unit.trim();
  const enumValues = form.enumValues
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  const field: TField = {
    ...(base ?? {}),
    name: form.name.trim(),
    type: form.type,
    description: form.description.trim(),
  };
  delete field.unit;
  delete field.currency;
  delete field.enumValues;
  if (form.type === "money") field.currency = form.currency.trim().toUpperCase();
  else if (unit) field.unit = unit;
  if (form.type === "enum") field.enumValues = enumValues;
  return field;
}

/** Plain-language line for a rule as it would read once saved (the card previews it while editing). */
export function previewRule(field: TFieldForm, form: TRuleForm, judge: TJudgeMode = "agent"): string {
  const rule = formToRule(form);
  if (!rule.ok) return rule.error;
  const target = {
    name: field.name.trim() || "this field",
    unit: field.type === "money" ? undefined : field.unit.trim() || undefined,
    currency: field.type === "money" ? field.currency.trim().toUpperCase() || undefined : undefined,
  };
  if (rule.rule.kind === "numeric" && rule.rule.absolute === undefined && rule.rule.relative === undefined) {
    return `${target.name}: give an amount or a percentage`;
  }
  if (
    rule.rule.kind === "numeric" &&
    rule.rule.combine &&
    (rule.rule.absolute === undefined || rule.rule.relative === undefined)
  ) {
    return `${target.name}: give both an amount and a percentage for “${THRESHOLD_MODE_LABELS[form.threshold]}”`;
  }
  return describeRule(target, rule.rule, judge);
}

/**
 * Replaces one field (and its rule), renaming the rule with it. Consistency between type and rule
 * (a numeric rule needs a numeric field) is the server's check; the form only offers valid pairs.
 */
export function replaceField(
  definition: TCardDefinition,
  name: string,
  field: TField,
  rule: TMaterialityRule,
): TCardDefinition {
  const { [name]: _old, ...materiality } = definition.materiality;
  return {
    ...definition,
    fields: definition.fields.map((f) => (f.name === name ? field : f)),
    materiality: withRule(materiality, field.name, rule),
  };
}

export function addField(definition: TCardDefinition, field: TField, rule: TMaterialityRule): TCardDefinition {
  return {
    ...definition,
    fields: [...definition.fields, field],
    materiality: withRule(definition.materiality, field.name, rule),
  };
}

export function removeField(definition: TCardDefinition, name: string): TCardDefinition {
  const { [name]: _removed, ...materiality } = definition.materiality;
  return { ...definition, fields: definition.fields.filter((f) => f.name !== name), materiality };
}

/** The default (ask the agent) is stored as no rule, the way drafts write it. */
function withRule(
  materiality: Record<string, TMaterialityRule>,
  name: string,
  rule: TMaterialityRule,
): Record<string, TMaterialityRule> {
  if (rule.kind === "ask_agent" && !rule.guidance) {
    const { [name]: _none, ...rest } = materiality;
    return rest;
  }
  return { ...materiality, [name]: rule };
}

function readNumber(text: string): number | null | "invalid" {
  const trimmed = text.trim();
  if (!trimmed) return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : "invalid";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

import { describe, expect, it } from "vitest";
import {
  addField,
  asCardDefinition,
  CARD_FIELD_TYPES,
  DEFAULT_RULE_FORM,
  EMPTY_FIELD_FORM,
  fieldToForm,
  formToField,
  formToRule,
  previewRule,
  removeField,
  replaceField,
  ruleToForm,
  setThresholdMode,
  setThresholdValue,
} from "@/components/tracker-setup/card-edits";
import { FIELD_TYPES, parseDefinition } from "@/server/intelligence/definition";

/** The draft card's direct edits: pure reshaping whose results the server validates with parseDefinition. */

const DRAFT = {
  fields: [
    {
      name: "acme_pro_price",
      type: "money",
      currency: "USD",
      description: "Price of Acme Pro",
      extractor: { kind: "json_pointer", pointer: "/jsonLd/0/offers/price" },
    },
    { name: "headings", type: "string_list", description: "Section headings" },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { acme_pro_price: { kind: "numeric", relative: 0.01 } },
};

const card = () => {
  const d = asCardDefinition(structuredClone(DRAFT));
  if (!d) throw new Error("not a definition");
  return d;
};
const fieldAt = (index: number) => {
  const field = card().fields[index];
  if (!field) throw new Error(`no field ${index}`);
  return field;
};
const rule = (form: Partial<typeof DEFAULT_RULE_FORM>) => {
  const r = formToRule({ ...DEFAULT_RULE_FORM, ...form });
  if (!r.ok) throw new Error(r.error);
  return r.rule;
};

describe("draft card edits", () => {
  it("offers exactly the definition's field types", () => {
    expect([...CARD_FIELD_TYPES]).toEqual([...FIELD_TYPES]);
  });

  it("reads no definition from a missing or malformed draft", () => {
    expect(asCardDefinition(null)).toBeNull();
    expect(asCardDefinition({ fields: "x" })).toBeNull();
  });

  it("round-trips a field and a numeric rule through the form", () => {
    const field = card().fields[0];
    if (!field) throw new Error("no field");
    expect(fieldToForm(field)).toMatchObject({ type: "money", currency: "USD", unit: "" });
    expect(ruleToForm({ kind: "numeric", relative: 0.01 })).toMatchObject({
      kind: "numeric",
      threshold: "relative",
      relativePercent: "1",
      absolute: "",
    });
    expect(rule({ kind: "numeric", threshold: "relative", relativePercent: "1" })).toEqual({
      kind: "numeric",
      relative: 0.01,
    });
    // Both thresholds without `combine` (rules locked before it) read as "either".
    expect(ruleToForm({ kind: "numeric", absolute: 2, relative: 0.05 }).threshold).toBe("either");
    expect(ruleToForm({ kind: "numeric", absolute: 2, relative: 0.05, combine: "both" }).threshold).toBe("both");
    expect(ruleToForm(undefined).kind).toBe("ask_agent");
  });

  it("changes a rule's threshold, keeps the extractor, and the result validates", () => {
    const field = card().fields[0];
    if (!field) throw new Error("no field");
    const form = { ...fieldToForm(field), description: "Monthly price" };
    const next = replaceField(
      card(),
      "acme_pro_price",
      formToField(form, field),
      rule({ kind: "numeric", absolute: "5", direction: "down" }),
    );
    const parsed = parseDefinition(next);
    expect(parsed.ok).toBe(true);
    expect(next.materiality.acme_pro_price).toEqual({ kind: "numeric", absolute: 5, direction: "down" });
    expect(next.fields[0]).toMatchObject({
      description: "Monthly price",
      extractor: { pointer: "/jsonLd/0/offers/price" },
    });
    expect(previewRule(form, ruleToForm(next.materiality.acme_pro_price))).toBe(
      "acme_pro_price: material when it falls by 5 USD or more (rises are noise)",
    );
  });

  it("changing the type keeps only the properties that type allows", () => {
    const money = card().fields[0];
    if (!money) throw new Error("no field");
    const asNumber = formToField({ ...fieldToForm(money), type: "number", unit: "dollars" }, money);
    expect(asNumber.currency).toBeUndefined();
    expect(asNumber.unit).toBe("dollars");
    const asEnum = formToField({ ...fieldToForm(money), type: "enum", enumValues: "cheap, dear ," }, money);
    expect(asEnum).toMatchObject({ type: "enum", enumValues: ["cheap", "dear"] });
    expect(asEnum.currency).toBeUndefined();
    const next = replaceField(card(), "acme_pro_price", asEnum, { kind: "any_change" });
    expect(parseDefinition(next).ok).toBe(true);
    expect(formToField({ ...EMPTY_FIELD_FORM, name: "p", type: "money", currency: "eur", description: "d" })).toEqual({
      name: "p",
      type: "money",
      currency: "EUR",
      description: "d",
    });
  });

  it("adds a field with its rule; 'ask the agent' without guidance is stored as no rule", () => {
    const added = addField(
      card(),
      formToField({ ...EMPTY_FIELD_FORM, name: "annual_price", type: "money", currency: "usd", description: "Annual" }),
      rule({ kind: "numeric", threshold: "relative", relativePercent: "10" }),
    );
    expect(parseDefinition(added).ok).toBe(true);
    expect(added.materiality.annual_price).toEqual({ kind: "numeric", relative: 0.1 });
    const plain = addField(
      card(),
      formToField({ ...EMPTY_FIELD_FORM, name: "plan", type: "string", description: "x" }),
      {
        kind: "ask_agent",
      },
    );
    expect(plain.materiality).not.toHaveProperty("plan");
    const guided = replaceField(card(), "headings", fieldAt(1), rule({ guidance: "new plans matter" }));
    expect(guided.materiality.headings).toEqual({ kind: "ask_agent", guidance: "new plans matter" });
  });

  it("removes a field with its rule", () => {
    const next = removeField(card(), "acme_pro_price");
    expect(next.fields.map((f) => f.name)).toEqual(["headings"]);
    expect(next.materiality).toEqual({});
    expect(parseDefinition(next).ok).toBe(true);
    expect(parseDefinition(removeField(next, "headings")).ok).toBe(false);
  });

  it("invalid edits are left for the server to refuse, with messages that say what is wrong", () => {
    const noThreshold = replaceField(card(), "acme_pro_price", fieldAt(0), rule({ kind: "numeric" }));
    expect(parseDefinition(noThreshold)).toMatchObject({
      ok: false,
      errors: [expect.stringContaining("needs an absolute or a relative threshold")],
    });
    const badName = addField(card(), formToField({ ...EMPTY_FIELD_FORM, name: "Annual Price", description: "x" }), {
      kind: "ask_agent",
    });
    expect(parseDefinition(badName)).toMatchObject({ ok: false, errors: [expect.stringContaining("snake_case")] });
    const duplicate = addField(card(), formToField({ ...EMPTY_FIELD_FORM, name: "headings", description: "x" }), {
      kind: "any_change",
    });
    expect(parseDefinition(duplicate)).toMatchObject({
      ok: false,
      errors: [expect.stringContaining("declared twice")],
    });
    const noCurrency = addField(
      card(),
      formToField({ ...EMPTY_FIELD_FORM, name: "fee", type: "money", description: "x" }),
      {
        kind: "any_change",
      },
    );
    expect(parseDefinition(noCurrency).ok).toBe(false);
  });

  it("reports a threshold that is not a number before saving, and previews an empty threshold rule", () => {
    expect(formToRule({ ...DEFAULT_RULE_FORM, kind: "numeric", absolute: "abc" })).toEqual({
      ok: false,
      error: "The amount must be a number.",
    });
    expect(previewRule({ ...EMPTY_FIELD_FORM, name: "rating" }, { ...DEFAULT_RULE_FORM, kind: "numeric" })).toBe(
      "rating: give an amount or a percentage",
    );
    expect(
      previewRule(
        { ...EMPTY_FIELD_FORM, name: "rating" },
        { ...DEFAULT_RULE_FORM, kind: "numeric", threshold: "both", absolute: "0.2" },
      ),
    ).toBe("rating: give both an amount and a percentage for “both”");
    expect(
      previewRule({ ...EMPTY_FIELD_FORM, name: "rating", unit: "stars" }, { ...DEFAULT_RULE_FORM, kind: "ignore" }),
    ).toBe("rating: ignored — changes are never flagged");
    // "Ask the agent" with no model configured: the preview says what the rules-mode judge will do instead.
    const guided = { ...DEFAULT_RULE_FORM, kind: "ask_agent" as const, guidance: "rewording is noise" };
    expect(previewRule({ ...EMPTY_FIELD_FORM, name: "title" }, guided)).toBe(
      "title: the agent decides — “rewording is noise”",
    );
    expect(previewRule({ ...EMPTY_FIELD_FORM, name: "title" }, guided, "rules")).toBe(
      "title: any change is recorded as notable, for your review (no AI configured)",
    );
  });

  it("states the threshold mode: an amount typed over the drafted 1 % replaces it, unless “either”/“both” was chosen", () => {
    const money = { ...EMPTY_FIELD_FORM, name: "price", type: "money" as const, currency: "USD" };
    const drafted = { ...ruleToForm({ kind: "numeric", relative: 0.01 }), direction: "down" as const };
    // The old trap: typing $10 used to yield "falls by 10 USD or more, or by 1% or more".
    const typed = setThresholdValue(drafted, "absolute", "10");
    expect(typed).toMatchObject({ threshold: "absolute", absolute: "10", relativePercent: "" });
    expect(previewRule(money, typed)).toBe("price: material when it falls by 10 USD or more (rises are noise)");
    // Clearing and retyping in the same mode changes nothing else; an empty keystroke switches nothing.
    expect(setThresholdValue(drafted, "absolute", "")).toEqual({ ...drafted, absolute: "" });

    const either = setThresholdValue(setThresholdMode(drafted, "either"), "absolute", "10");
    expect(either).toMatchObject({ threshold: "either", absolute: "10", relativePercent: "1" });
    expect(formToRule(either)).toEqual({
      ok: true,
      rule: { kind: "numeric", absolute: 10, relative: 0.01, direction: "down", combine: "either" },
    });
    expect(previewRule(money, either)).toBe(
      "price: material when it falls either by 10 USD or more or by 1% or more (rises are noise)",
    );
    const both = setThresholdMode(either, "both");
    expect(previewRule(money, both)).toBe(
      "price: material when it falls both by 10 USD or more and by 1% or more (rises are noise)",
    );
    // Back to one threshold: the other is emptied, visibly, not kept out of sight.
    expect(setThresholdMode(both, "relative")).toMatchObject({
      threshold: "relative",
      absolute: "",
      relativePercent: "1",
    });
    expect(formToRule(setThresholdMode(both, "absolute"))).toEqual({
      ok: true,
      rule: { kind: "numeric", absolute: 10, direction: "down" },
    });
    // In a combined mode typing either threshold keeps the mode.
    expect(setThresholdValue(both, "relative", "3")).toMatchObject({ threshold: "both", absolute: "10" });
  });
});

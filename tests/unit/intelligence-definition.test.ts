import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  buildRecordSchema,
  canonicalJson,
  describeRule,
  effectiveFields,
  parseDefinition,
  ruleForField,
  type TTrackerDefinition,
  ZTrackerDefinitionSchema,
} from "@/server/intelligence/definition";
import { hashCanonical } from "@/server/intelligence/definition/hash-canonical";
import { definitionToolInputSchema } from "@/server/intelligence/setup/schema";

const placeDefinition = {
  fields: [
    {
      name: "rating",
      type: "number",
      description: "Average star rating",
      unit: "stars",
      extractor: { kind: "json_pointer", pointer: "/rating" },
    },
    { name: "review_count", type: "integer", description: "Number of reviews", unit: "reviews" },
    { name: "price", type: "money", description: "Tasting menu price", currency: "USD" },
    { name: "status", type: "enum", description: "Business status", enumValues: ["OPERATIONAL", "CLOSED_TEMPORARILY"] },
    { name: "hours", type: "string_list", description: "Opening hours per day" },
    { name: "takes_reservations", type: "boolean", description: "Whether reservations are accepted" },
    { name: "description", type: "string", description: "Editorial summary" },
  ],
  identityRule: { kind: "place_id" },
  materiality: {
    rating: { kind: "numeric", absolute: 0.2 },
    review_count: { kind: "numeric", absolute: 10 },
    price: { kind: "numeric", relative: 0.05 },
    status: { kind: "any_change" },
    hours: { kind: "ignore" },
    description: { kind: "ask_agent", guidance: "rewording is noise" },
  },
} satisfies TTrackerDefinition;

function errorsOf(input: unknown): string[] {
  const result = parseDefinition(input);
  if (result.ok) throw new Error("expected the definition to be rejected");
  return result.errors;
}

function withField(patch: Record<string, unknown>, materiality: Record<string, unknown> = {}) {
  return {
    fields: [
      { name: "title", type: "string", description: "Page title" },
      { name: "x", type: "string", description: "X", ...patch },
    ],
    identityRule: { kind: "canonical_url" },
    materiality,
  };
}

describe("tracker definition schema", () => {
  it("accepts a full definition and always adds notable_signals last", () => {
    const result = parseDefinition(placeDefinition);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const names = effectiveFields(result.definition).map((f) => f.name);
    expect(names.at(-1)).toBe("notable_signals");
    expect(names).toHaveLength(placeDefinition.fields.length + 1);
  });

  it("defaults fields without a rule, and notable_signals always, to ask_agent", () => {
    expect(ruleForField(placeDefinition, "takes_reservations")).toEqual({ kind: "ask_agent" });
    expect(ruleForField(placeDefinition, "notable_signals")).toEqual({ kind: "ask_agent" });
    expect(ruleForField(placeDefinition, "rating")).toEqual({ kind: "numeric", absolute: 0.2 });
  });

  it("gives readable errors that name the field", () => {
    expect(errorsOf(withField({ type: "money" }))).toEqual([
      'fields[1] (x) › currency: a money field needs a currency (ISO 4217, e.g. "USD")',
    ]);
    expect(errorsOf(withField({ type: "enum" }))).toEqual([
      "fields[1] (x) › enumValues: an enum field needs enumValues",
    ]);
    expect(errorsOf(withField({ name: "notable_signals" }))[0]).toContain('"notable_signals" is reserved');
    expect(errorsOf(withField({ name: "Review Count" }))[0]).toMatch(
      /^fields\[1\] \(Review Count\) › name: .*snake_case/,
    );
    expect(errorsOf(withField({ name: "a".repeat(49) }))[0]).toContain("at most 48 characters");
    expect(errorsOf(withField({ name: "title" }))).toEqual([
      'fields[1] (title) › name: field "title" is declared twice',
    ]);
    expect(errorsOf(withField({ currency: "usd" }))).toContain(
      'fields[1] (x) › currency: a currency is a 3-letter ISO 4217 code such as "USD"',
    );
  });

  it("checks rules against fields", () => {
    expect(errorsOf(withField({}, { x: { kind: "numeric", absolute: 1 } }))).toEqual([
      'materiality › x: a numeric rule needs a number, integer or money field, but "x" is string',
    ]);
    expect(errorsOf(withField({}, { ghost: { kind: "any_change" } }))).toEqual([
      'materiality › ghost: there is a rule for "ghost" but no field with that name',
    ]);
    expect(errorsOf(withField({ type: "number" }, { x: { kind: "numeric" } }))).toEqual([
      "materiality › x: a numeric rule needs an absolute or a relative threshold (or both)",
    ]);
    expect(errorsOf(withField({ type: "number" }, { x: { kind: "numeric", absolute: 1, combine: "both" } }))).toEqual([
      'materiality › x › combine: "either" / "both" needs an absolute and a relative threshold; give both, or drop "combine"',
    ]);
    expect(errorsOf(withField({ type: "number" }, { x: { kind: "numeric", absolute: 1, combine: "all" } }))[0]).toMatch(
      /^materiality › x › combine: /,
    );
    // Rules locked before `combine` existed parse unchanged (and mean "either", see describeRule / evaluateDeltas).
    const old = parseDefinition(withField({ type: "number" }, { x: { kind: "numeric", absolute: 1, relative: 0.1 } }));
    expect(old.ok && old.definition.materiality.x).toEqual({ kind: "numeric", absolute: 1, relative: 0.1 });
    expect(errorsOf(withField({}, { notable_signals: { kind: "any_change" } }))[0]).toContain(
      "notable_signals is always judged by the agent",
    );
    expect(errorsOf(withField({ type: "number" }, { x: { kind: "numeric", absolute: -1 } }))[0]).toContain(
      "greater than 0",
    );
  });

  it("validates extractors: regex compiles on the linear-time engine, CSS parses, pointer is RFC 6901", () => {
    expect(errorsOf(withField({ extractor: { kind: "regex", pattern: "(unclosed" } }))[0]).toMatch(
      /^fields\[1\] \(x\) › extractor › pattern: the pattern does not compile/,
    );
    // Nested quantifiers are fine now: the engine cannot backtrack (tests/unit/intelligence-regex-linear.test.ts).
    expect(parseDefinition(withField({ extractor: { kind: "regex", pattern: "(a+)+$" } })).ok).toBe(true);
    expect(errorsOf(withField({ extractor: { kind: "regex", pattern: "a", flags: "g" } }))[0]).toContain('flags "g"');
    expect(errorsOf(withField({ extractor: { kind: "css", selector: "div[" } }))[0]).toContain(
      "CSS selector does not parse",
    );
    expect(errorsOf(withField({ extractor: { kind: "json_pointer", pointer: "rating" } }))[0]).toContain("RFC 6901");
    expect(parseDefinition(withField({ extractor: { kind: "regex", pattern: "(\\d+) reviews", group: 1 } })).ok).toBe(
      true,
    );
  });

  it("can be turned into JSON schema for the drafter", () => {
    const json = z.toJSONSchema(ZTrackerDefinitionSchema) as { properties: Record<string, { description?: string }> };
    expect(Object.keys(json.properties)).toEqual([
      "fields",
      "identityRule",
      "materiality",
      "contextValues",
      "contextRules",
      "set",
    ]);
    expect(json.properties.contextRules?.description).toContain("bound value");
    expect(json.properties.set?.description).toContain("watches a set");
    expect(JSON.stringify(json)).toContain("snake_case identifier");
  });

  it("gives the drafter's tool schema the numeric rule's combine, described", () => {
    const tool = JSON.stringify(definitionToolInputSchema.jsonSchema);
    expect(tool).toContain('"combine"');
    expect(tool).toContain('"either","both"');
    expect(tool).toContain("the move must cross the absolute AND the relative threshold");
  });
});

describe("buildRecordSchema", () => {
  const full = {
    rating: 4.4,
    review_count: 312,
    price: { amount: 95, currency: "USD" },
    status: "OPERATIONAL",
    hours: ["Mon 9-5"],
    takes_reservations: null,
    description: "Cosy bistro",
    notable_signals: [],
  };

  it("accepts a valid record with nulls and rejects unknown keys and wrong types", () => {
    const schema = buildRecordSchema(placeDefinition);
    expect(schema.safeParse(full).success).toBe(true);
    expect(schema.safeParse({ ...full, opening_year: 1999 }).success).toBe(false);
    expect(schema.safeParse({ ...full, review_count: 312.5 }).success).toBe(false);
    expect(schema.safeParse({ ...full, rating: "4.4" }).success).toBe(false);
    expect(schema.safeParse({ ...full, price: 95 }).success).toBe(false);
    expect(schema.safeParse({ ...full, price: { amount: 95, currency: "usd" } }).success).toBe(false);
    expect(schema.safeParse({ ...full, status: "open" }).success).toBe(false);
    expect(schema.safeParse({ ...full, notable_signals: null }).success).toBe(false);
    const { description: _omitted, ...missing } = full;
    expect(schema.safeParse(missing).success).toBe(false);
  });

  it("onlyFields keeps just those fields plus notable_signals", () => {
    const schema = buildRecordSchema(placeDefinition, { onlyFields: ["description"] });
    expect(Object.keys(schema.shape)).toEqual(["description", "notable_signals"]);
    expect(() => buildRecordSchema(placeDefinition, { onlyFields: ["ghost"] })).toThrow(/ghost/);
  });

  it("produces OpenAI-strict-friendly JSON schema: every object closed, every key required", () => {
    const json = z.toJSONSchema(buildRecordSchema(placeDefinition));
    const objects: Array<{ properties: Record<string, unknown>; required?: string[]; additionalProperties?: unknown }> =
      [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        const o = node as Record<string, unknown>;
        if (o.type === "object") objects.push(o as (typeof objects)[number]);
        Object.values(o).forEach(walk);
      }
    };
    walk(json);
    expect(objects.length).toBe(2); // the record and the money value
    for (const o of objects) {
      expect(o.additionalProperties).toBe(false);
      expect([...(o.required ?? [])].sort()).toEqual(Object.keys(o.properties).sort());
    }
    expect(JSON.stringify(json)).toContain("Average star rating");
  });
});

describe("describeRule", () => {
  it("says rules in plain language", () => {
    const f = (name: string, extra: Record<string, string> = {}) => ({ name, ...extra });
    expect(describeRule(f("rating"), { kind: "numeric", absolute: 0.2 })).toBe(
      "rating: material when it moves by 0.2 or more",
    );
    expect(describeRule(f("price"), { kind: "numeric", relative: 0.05 })).toBe("price: material on a 5% move or more");
    expect(describeRule(f("description"), { kind: "ask_agent" })).toBe("description: the agent decides");
    expect(describeRule(f("description"))).toBe("description: the agent decides");
    expect(
      describeRule(f("review_count", { unit: "reviews" }), { kind: "numeric", absolute: 10, direction: "up" }),
    ).toBe("review_count: material when it rises by 10 reviews or more (drops are noise)");
    // Both thresholds: the line says whether either or both must be crossed (no combine = "either").
    expect(describeRule(f("price", { currency: "EUR" }), { kind: "numeric", absolute: 1, relative: 0.1 })).toBe(
      "price: material when it moves either by 1 EUR or more or by 10% or more",
    );
    expect(
      describeRule(f("price", { currency: "EUR" }), { kind: "numeric", absolute: 1, relative: 0.1, combine: "either" }),
    ).toBe("price: material when it moves either by 1 EUR or more or by 10% or more");
    expect(
      describeRule(f("price", { currency: "USD" }), {
        kind: "numeric",
        absolute: 10,
        relative: 0.05,
        combine: "both",
        direction: "down",
      }),
    ).toBe("price: material when it falls both by 10 USD or more and by 5% or more (rises are noise)");
    expect(describeRule(f("price", { currency: "USD" }), { kind: "numeric", absolute: 10, direction: "down" })).toBe(
      "price: material when it falls by 10 USD or more (rises are noise)",
    );
    expect(describeRule(f("status"), { kind: "any_change" })).toBe("status: material on any change");
    expect(describeRule(f("hours"), { kind: "ignore" })).toBe("hours: ignored — changes are never flagged");
    expect(describeRule(f("menu"), { kind: "ask_agent", guidance: "new dishes matter" })).toBe(
      "menu: the agent decides — “new dishes matter”",
    );
  });

  it("describes a field left to the agent as rules mode really judges it; code rules read the same in both modes", () => {
    const rulesText = "menu: any change is recorded as notable, for your review (no AI configured)";
    expect(describeRule({ name: "menu" }, { kind: "ask_agent", guidance: "new dishes matter" }, "rules")).toBe(
      rulesText,
    );
    expect(describeRule({ name: "menu" }, undefined, "rules")).toBe(rulesText);
    expect(describeRule({ name: "menu" }, { kind: "ask_agent" }, "agent")).toBe("menu: the agent decides");
    for (const rule of [{ kind: "numeric", relative: 0.05 }, { kind: "any_change" }, { kind: "ignore" }] as const) {
      expect(describeRule({ name: "price" }, rule, "rules")).toBe(describeRule({ name: "price" }, rule, "agent"));
    }
  });
});

describe("canonicalJson", () => {
  it("is independent of key order and stable", () => {
    const a = { b: 1, a: { d: [1, { y: 2, x: 1 }], c: "s" }, u: undefined };
    const b = { a: { c: "s", d: [1, { x: 1, y: 2 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":"s","d":[1,{"x":1,"y":2}]},"b":1}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(hashCanonical(a)).toBe(hashCanonical(b));
    expect(hashCanonical({ v: 1 })).not.toBe(hashCanonical({ v: 2 }));
    expect(canonicalJson(-0)).toBe("0");
    expect(canonicalJson([1, undefined])).toBe("[1,null]");
  });

  it("refuses values JSON cannot represent faithfully", () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/NaN/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/function/);
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => canonicalJson(loop)).toThrow(/circular/);
  });
});

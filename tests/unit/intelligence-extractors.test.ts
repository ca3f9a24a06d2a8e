import { describe, expect, it } from "vitest";
import { detectPrices } from "@/server/capabilities";
import { MAX_REGEX_TEXT_CHARS, type TField, type TTrackerDefinition } from "@/server/intelligence/definition";
import {
  applyExtractors,
  coerceValue,
  parseMoneyText,
  parseNumberText,
  resolveJsonPointer,
} from "@/server/intelligence/fill";

function def(fields: TField[]): TTrackerDefinition {
  return { fields, identityRule: { kind: "input" }, materiality: {} };
}

describe("parseNumberText", () => {
  it.each([
    ["4.3", 4.3],
    ["$1,299.00", 1299],
    ["1.299,00 €", 1299],
    ["1 299,50", 1299.5],
    ["4,3", 4.3],
    ["312 reviews", 312],
    ["−2.5", -2.5],
    ["1.299.000", 1299000],
    ["CHF 1'250", 1250],
  ])("%s → %s", (text, expected) => {
    expect(parseNumberText(text)).toBe(expected);
  });

  it.each(["4.3 out of 5", "no price", "", "1,2,3", "was $20, now $15"])("refuses %j", (text) => {
    expect(parseNumberText(text)).toBeNull();
  });

  it("reads a price the way detectPrices does (one shared reader)", () => {
    for (const text of ["Rp 31.500", "1.837, 32 €", "₹ 1,29,999", "199:-", "KWD 1.250", "Cena 2 pcs: 9 472 Ft"]) {
      expect(parseNumberText(text), text).toBe(detectPrices(text)[0]?.amount);
    }
    expect(parseNumberText("Rp 31.500")).toBe(31500);
    // A range reads as its lower bound.
    expect(parseNumberText("From 26 to 50 €")).toBe(26);
  });

  it("reads a bare number by price rules only when given a currency", () => {
    expect(parseNumberText("31.500")).toBe(31.5);
    expect(parseNumberText("31.500", "IDR")).toBe(31500);
    expect(parseNumberText("1.250", "KWD")).toBe(1.25);
    expect(parseMoneyText("31.500", "idr")).toEqual({ amount: 31500, currency: "IDR" });
    expect(parseMoneyText("31.500")).toEqual({ amount: 31.5, currency: null });
  });
});

describe("resolveJsonPointer", () => {
  const doc = { a: { "b/c": [10, { "~x": "y" }] }, n: null };
  it("follows RFC 6901 escapes and array indices", () => {
    expect(resolveJsonPointer(doc, "/a/b~1c/0")).toEqual({ found: true, value: 10 });
    expect(resolveJsonPointer(doc, "/a/b~1c/1/~0x")).toEqual({ found: true, value: "y" });
    expect(resolveJsonPointer(doc, "")).toEqual({ found: true, value: doc });
    expect(resolveJsonPointer(doc, "/n")).toEqual({ found: true, value: null });
  });
  it("misses cleanly, and never walks the prototype", () => {
    expect(resolveJsonPointer(doc, "/a/missing")).toEqual({ found: false });
    expect(resolveJsonPointer(doc, "/a/b~1c/5")).toEqual({ found: false });
    expect(resolveJsonPointer(doc, "/a/b~1c/-")).toEqual({ found: false });
    expect(resolveJsonPointer(doc, "/constructor")).toEqual({ found: false });
  });
});

describe("coerceValue", () => {
  const money: TField = { name: "price", type: "money", description: "p", currency: "USD" };
  const flag: TField = { name: "in_stock", type: "boolean", description: "b" };
  it("reads money with the field's or the shown currency", () => {
    expect(coerceValue(money, "$1,299.00")).toEqual({ ok: true, value: { amount: 1299, currency: "USD" } });
    expect(coerceValue(money, "€12,50")).toEqual({ ok: true, value: { amount: 12.5, currency: "EUR" } });
    expect(coerceValue(money, "NEW: GBP 40")).toEqual({ ok: true, value: { amount: 40, currency: "GBP" } });
    expect(coerceValue(money, 9.9)).toEqual({ ok: true, value: { amount: 9.9, currency: "USD" } });
    expect(coerceValue(money, { price: "19.99", priceCurrency: "eur" })).toEqual({
      ok: true,
      value: { amount: 19.99, currency: "EUR" },
    });
  });
  it("reads local notations and resolves ambiguous symbols against the field's currency", () => {
    const idr: TField = { ...money, currency: "IDR" };
    const nok: TField = { ...money, currency: "NOK" };
    const cad: TField = { ...money, currency: "CAD" };
    expect(coerceValue(idr, "Rp 31.500")).toEqual({ ok: true, value: { amount: 31500, currency: "IDR" } });
    expect(coerceValue(idr, "31.500")).toEqual({ ok: true, value: { amount: 31500, currency: "IDR" } });
    expect(coerceValue(nok, "kr 1 299,-")).toEqual({ ok: true, value: { amount: 1299, currency: "NOK" } });
    expect(coerceValue(money, "kr 1 299,-")).toEqual({ ok: true, value: { amount: 1299, currency: "SEK" } });
    expect(coerceValue(cad, "$19.99")).toEqual({ ok: true, value: { amount: 19.99, currency: "CAD" } });
    expect(coerceValue(cad, "1 499 ₽")).toEqual({ ok: true, value: { amount: 1499, currency: "RUB" } });
    expect(coerceValue(money, "From 26 to 50 €")).toEqual({ ok: true, value: { amount: 26, currency: "EUR" } });
    expect(coerceValue(money, "Was $20, now $15").ok).toBe(false);
  });
  it("never guesses booleans", () => {
    expect(coerceValue(flag, "In stock").ok).toBe(false);
    expect(coerceValue(flag, " Yes ")).toEqual({ ok: true, value: true });
    expect(coerceValue(flag, "false")).toEqual({ ok: true, value: false });
    expect(coerceValue(flag, 1).ok).toBe(false);
  });
  it("keeps integers whole and enums canonical", () => {
    const count: TField = { name: "n", type: "integer", description: "n" };
    expect(coerceValue(count, "1,204 reviews")).toEqual({ ok: true, value: 1204 });
    expect(coerceValue(count, 4.5).ok).toBe(false);
    const status: TField = { name: "s", type: "enum", description: "s", enumValues: ["Open", "Closed"] };
    expect(coerceValue(status, " closed ")).toEqual({ ok: true, value: "Closed" });
    expect(coerceValue(status, "ajar").ok).toBe(false);
  });
});

describe("applyExtractors", () => {
  const html = `<html><body>
    <h1 class="name">  Chez   Nous </h1>
    <span class="price">$1,299.00</span>
    <meta itemprop="ratingValue" content="4.3">
    <ul><li class="tag">vegan</li><li class="tag">wine bar</li></ul>
    <p class="stock">In stock</p>
  </body></html>`;
  const text = "Chez Nous. Rated by 312 reviews. Opening year: 1999. Open: yes";

  it("fills fields by JSON pointer, CSS and regex, coerced to their types", async () => {
    const definition = def([
      {
        name: "rating",
        type: "number",
        description: "r",
        extractor: { kind: "css", selector: "meta[itemprop=ratingValue]", attribute: "content" },
      },
      { name: "name", type: "string", description: "n", extractor: { kind: "css", selector: "h1.name" } },
      {
        name: "price",
        type: "money",
        description: "p",
        currency: "USD",
        extractor: { kind: "css", selector: ".price" },
      },
      { name: "tags", type: "string_list", description: "t", extractor: { kind: "css", selector: "li.tag" } },
      {
        name: "review_count",
        type: "integer",
        description: "c",
        extractor: { kind: "regex", pattern: "(\\d+) reviews" },
      },
      {
        name: "year",
        type: "integer",
        description: "y",
        extractor: { kind: "regex", pattern: "Opening year: (?<y>\\d{4})", group: "y" },
      },
      { name: "open", type: "boolean", description: "o", extractor: { kind: "regex", pattern: "Open: (\\w+)" } },
      {
        name: "place_id",
        type: "string",
        description: "id",
        extractor: { kind: "json_pointer", pointer: "/place/id" },
      },
      { name: "summary", type: "string", description: "no extractor: left to the model" },
    ]);
    const { values, warnings } = await applyExtractors(definition, { json: { place: { id: "abc" } }, html, text });
    expect(values).toEqual({
      rating: 4.3,
      name: "Chez Nous",
      price: { amount: 1299, currency: "USD" },
      tags: ["vegan", "wine bar"],
      review_count: 312,
      year: 1999,
      open: true,
      place_id: "abc",
    });
    expect(warnings).toEqual([]);
  });

  it("turns misses and failed coercions into null plus a warning", async () => {
    const definition = def([
      { name: "in_stock", type: "boolean", description: "s", extractor: { kind: "css", selector: "p.stock" } },
      { name: "sku", type: "string", description: "s", extractor: { kind: "css", selector: "#sku" } },
      { name: "rating", type: "number", description: "r", extractor: { kind: "json_pointer", pointer: "/rating" } },
      { name: "count", type: "integer", description: "c", extractor: { kind: "regex", pattern: "(\\d+) reviews" } },
    ]);
    const { values, warnings } = await applyExtractors(definition, { json: {}, html });
    expect(values).toEqual({ in_stock: null, sku: null, rating: null, count: null });
    expect(warnings).toEqual([
      'in_stock: expected true/false/yes/no, got "In stock"',
      'sku: CSS selector "#sku" matched nothing',
      'rating: JSON pointer "/rating" matched nothing',
      "count: no page text to run the regex against",
    ]);
  });

  it("caps the text a regex sees, so a huge page cannot stall the loop", async () => {
    const definition = def([
      { name: "tail", type: "string", description: "t", extractor: { kind: "regex", pattern: "NEEDLE(\\d+)" } },
    ]);
    const huge = `${"x".repeat(2_000_000)}NEEDLE42`;
    const { values, warnings } = await applyExtractors(definition, { json: null, text: huge });
    expect(values.tail).toBeNull();
    expect(warnings[0]).toContain("matched nothing");
    // Just inside the cap it is found: the cut is at MAX_REGEX_TEXT_CHARS, not earlier.
    const inside = `${"x".repeat(MAX_REGEX_TEXT_CHARS - "NEEDLE42".length)}NEEDLE42${"x".repeat(10)}`;
    expect((await applyExtractors(definition, { json: null, text: inside })).values.tail).toBe("42");
  });
});

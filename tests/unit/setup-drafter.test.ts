import { describe, expect, it } from "vitest";
import { formatStructuredDocument } from "@/server/capabilities";
import { parseDefinition } from "@/server/intelligence/definition";
import { draftFromSample, findTarget, toDraftView, toFieldName } from "@/server/intelligence/setup";

describe("findTarget", () => {
  it("binds the first URL in the message, without trailing punctuation", () => {
    expect(findTarget("Tell me if Acme undercuts our $49 plan — https://acme.example/pricing.")).toEqual({
      capability: "web.scrape",
      input: { url: "https://acme.example/pricing" },
      label: "https://acme.example/pricing",
    });
  });
  it("binds a Google Maps place id", () => {
    expect(findTarget("Did the venue change its hours? ChIJN1t_tDeuEmsRUsoyG83frY4")).toMatchObject({
      capability: "maps.place",
      input: { placeId: "ChIJN1t_tDeuEmsRUsoyG83frY4" },
    });
    expect(findTarget("place id: GhIJQWDl0CIeQUARxks3icF8U8A")).toMatchObject({ capability: "maps.place" });
  });
  it("returns null when there is nothing to bind", () => {
    expect(findTarget("Tell me if Acme undercuts our plan")).toBeNull();
    expect(findTarget("ftp://files.example/x")).toBeNull();
  });
});

describe("draftFromSample (rules mode)", () => {
  it("turns JSON-LD offers, detected prices, title and headings into a valid definition with conservative rules", () => {
    const html = `<html><head><title>Acme</title><script type="application/ld+json">
      {"@type":"Product","name":"Acme Pro","offers":[{"@type":"Offer","price":"45","priceCurrency":"USD"},{"@type":"Offer","name":"Team","price":99,"priceCurrency":"EUR","availability":"InStock"}]}
      </script></head><body><main><h1>Pricing</h1><p>Pro $45 a month</p></main></body></html>`;
    const document = formatStructuredDocument({ kind: "html", html }, "https://acme.example/pricing");
    const definition = draftFromSample("web.scrape", { document });
    expect(parseDefinition(definition).ok).toBe(true);
    expect(definition.fields.map((f) => [f.name, f.type, f.currency, f.extractor])).toEqual([
      ["acme_pro_price", "money", "USD", { kind: "json_pointer", pointer: "/jsonLd/0/offers/0/price" }],
      ["team_price", "money", "EUR", { kind: "json_pointer", pointer: "/jsonLd/0/offers/1/price" }],
      ["team_availability", "string", undefined, { kind: "json_pointer", pointer: "/jsonLd/0/offers/1/availability" }],
      ["price", "money", "USD", { kind: "json_pointer", pointer: "/prices/0/amount" }],
      ["title", "string", undefined, { kind: "json_pointer", pointer: "/title" }],
      ["headings", "string_list", undefined, { kind: "json_pointer", pointer: "/headings" }],
    ]);
    expect(definition.materiality).toMatchObject({
      acme_pro_price: { kind: "numeric", relative: 0.01 },
      team_availability: { kind: "any_change" },
      title: { kind: "ask_agent" },
    });
    expect(definition.identityRule).toEqual({ kind: "canonical_url" });
  });

  it("drafts place fields with the worked example's thresholds", () => {
    const definition = draftFromSample("maps.place", {
      place: {
        placeId: "p1",
        name: "Cafe",
        rating: 4.4,
        reviewCount: 312,
        openingHours: ["Mon: 9–5"],
        description: null,
      },
    });
    expect(definition.identityRule).toEqual({ kind: "place_id" });
    expect(definition.materiality.rating).toEqual({ kind: "numeric", absolute: 0.2 });
    expect(definition.materiality.review_count).toEqual({ kind: "numeric", absolute: 10 });
    expect(definition.fields.map((f) => f.name)).toEqual(["rating", "review_count", "opening_hours", "name"]);
  });

  it("falls back to the main text when the sample has no structure, and never exceeds the field cap", () => {
    const empty = draftFromSample("web.scrape", { document: { title: null, headings: [], prices: [], jsonLd: [] } });
    expect(empty.fields.map((f) => f.name)).toEqual(["main_text"]);
    const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
    expect(draftFromSample("web.scrape", { json: wide }).fields).toHaveLength(12);
  });

  it("makes valid, unique snake_case names", () => {
    expect(toFieldName("Acme Pro (monthly)")).toBe("acme_pro_monthly");
    expect(toFieldName("priceCurrency")).toBe("price_currency");
    expect(toFieldName("9lives")).toBe("f_9lives");
    expect(toFieldName("notable_signals")).toBe("field");
  });
});

describe("toDraftView", () => {
  it("describes a partial, still-streaming definition without throwing", () => {
    expect(
      toDraftView({
        fields: [{ name: "pro_price", type: "mon" }, { nam: "x" }],
        materiality: { pro_price: { kind: "numeric" } },
      }),
    ).toEqual({
      fields: [{ name: "pro_price", type: "mon", unit: null, description: "", extractor: null }],
      identity: null,
      rules: [expect.stringContaining("pro_price")],
    });
    expect(toDraftView(undefined)).toEqual({ fields: [], identity: null, rules: [] });
    // A rule kind cut off mid-word still gives a line of text (the card's view is validated as strings).
    expect(
      toDraftView({ fields: [{ name: "pro_price", type: "money" }], materiality: { pro_price: { kind: "numer" } } })
        .rules,
    ).toEqual(["pro_price: …"]);
  });
  it("states the rules in plain language", () => {
    const view = toDraftView({
      fields: [
        { name: "rating", type: "number", unit: "stars", description: "r", extractor: { kind: "css", selector: "#r" } },
      ],
      identityRule: { kind: "place_id" },
      materiality: { rating: { kind: "numeric", absolute: 0.2 } },
    });
    expect(view.rules).toEqual(["rating: material when it moves by 0.2 stars or more"]);
    expect(view.fields[0]?.extractor).toBe("CSS #r");
    expect(view.identity).toMatch(/place id/);
  });
});

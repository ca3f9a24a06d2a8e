import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { resetAiForTests, setModelOverrideForTests } from "@/server/ai";
import { formatStructuredDocument } from "@/server/capabilities";
import { describeNotableSignals, parseDefinition } from "@/server/intelligence/definition";
import { draftFromSample, draftWithNotes, findTarget, toDraftView, toFieldName } from "@/server/intelligence/setup";

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
  it("anchors the product's price to its structured offer, proposes availability, skips prices already covered", () => {
    const html = `<html><head><title>Acme</title><script type="application/ld+json">
      [{"@type":"Product","name":"Acme Pro","offers":{"@type":"Offer","price":"45","priceCurrency":"USD","availability":"InStock"}},
       {"@type":"Product","name":"Acme Team","offers":{"@type":"Offer","price":99,"priceCurrency":"EUR"}}]
      </script></head><body><main><h1>Pricing</h1><p>Pro $45 a month</p><p>Team plan €99 per month</p></main></body></html>`;
    const document = formatStructuredDocument({ kind: "html", html }, "https://acme.example/pricing");
    const definition = draftFromSample("web.scrape", { document });
    expect(parseDefinition(definition).ok).toBe(true);
    expect(definition.fields.map((f) => [f.name, f.type, f.currency, f.extractor])).toEqual([
      ["acme_pro_price", "money", "USD", { kind: "json_pointer", pointer: "/offers/0/price" }],
      ["availability", "enum", undefined, { kind: "json_pointer", pointer: "/availability/value" }],
      ["acme_team_price", "money", "EUR", { kind: "json_pointer", pointer: "/offers/1/price" }],
      ["title", "string", undefined, { kind: "json_pointer", pointer: "/title" }],
      ["headings", "string_list", undefined, { kind: "json_pointer", pointer: "/headings" }],
    ]);
    expect(definition.materiality).toMatchObject({
      acme_pro_price: { kind: "numeric", relative: 0.01 },
      availability: { kind: "any_change" },
      title: { kind: "ask_agent" },
    });
    expect(definition.fields[1]?.enumValues).toContain("OutOfStock");
    expect(definition.identityRule).toEqual({ kind: "canonical_url" });
  });

  it("without offers: the own price by a label, never a promotion or an old price; positions only as a last resort", () => {
    const html = `<html><body><main><p>Free shipping on orders over $50</p><h1>Desk lamp</h1>
      <p>Was $59.00</p><p>Our price: $49.00</p><p>Team plan $99 per month</p></main></body></html>`;
    const document = formatStructuredDocument({ kind: "html", html }, "https://shop.example/lamp");
    const { definition, notes } = draftWithNotes(
      "web.scrape",
      { document },
      { decision: "Tell me if the lamp gets cheaper" },
    );
    const price = definition.fields[0];
    expect(price).toMatchObject({ name: "price", type: "money", currency: "USD", extractor: { kind: "regex" } });
    expect(price?.extractor?.kind === "regex" && price.extractor.pattern).toMatch(/^Our\\s\+price:/);
    expect(definition.fields.map((f) => f.name)).toContain("team_plan_price");
    expect(JSON.stringify(definition.fields)).not.toContain("/prices/");
    expect(notes.join(" ")).toMatch(
      /left out 2 prices that are not the product's own: “\$50” \(promotional: “shipping”\), “\$59.00” \(after “Was”\)/,
    );
    // Asked about the old price: it becomes a field of its own (anchored by its label).
    const asked = draftFromSample("web.scrape", { document }, { decision: "Watch the regular price and the discount" });
    expect(asked.fields.map((f) => f.name)).toContain("was_old_price");
    // A bare page with one unlabelled price and no heading: its position is all there is.
    const bare = formatStructuredDocument({ kind: "html", html: "<p>$12.00</p>" }, "https://shop.example/x");
    expect(draftFromSample("web.scrape", { document: bare }).fields[0]?.extractor).toEqual({
      kind: "json_pointer",
      pointer: "/prices/0/amount",
    });
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

  it("shortens long names by dropping middle words, keeping the meaningful last word", () => {
    const long = toFieldName("Acme UltraLight Trail Running Shoe for Men and Women — Enterprise_price");
    expect(long).toBe("acme_ultra_light_trail_running_price");
    expect(long.length).toBeLessThanOrEqual(40);
    // The cut that used to happen: 40 characters end mid-word ("…enterp"), the suffix lost.
    expect(toFieldName("Professional Services Enterprise Support Enterprise_price")).toMatch(/_price$/);
    expect(toFieldName("Gigantic Stainless Steel Espresso Machine Deluxe_availability")).toBe(
      "gigantic_stainless_steel_availability",
    );
    // One endless word before the suffix: a prefix of it stays, so the name still says what it is.
    expect(toFieldName(`${"x".repeat(60)}_price`)).toBe(`${"x".repeat(34)}_price`);
    expect(toFieldName("a".repeat(60))).toHaveLength(40);
    for (const name of [long, toFieldName(`9 ${"word ".repeat(20)}price`)]) {
      expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(name.length).toBeLessThanOrEqual(40);
    }
    // Two long names that differ only in the middle stay apart through the drafter's _2 suffix.
    const html = `<script type="application/ld+json">[
      {"@type":"Product","name":"Acme Ultra Light Trail Running Shoe Blue Edition","offers":{"price":1,"priceCurrency":"USD"}},
      {"@type":"Product","name":"Acme Ultra Light Trail Running Shoe Red Edition","offers":{"price":2,"priceCurrency":"USD"}}]</script>`;
    const document = formatStructuredDocument({ kind: "html", html }, "https://acme.example/shoes");
    const names = draftFromSample("web.scrape", { document }).fields.map((f) => f.name);
    expect(names.slice(0, 2)).toEqual([
      "acme_ultra_light_trail_running_price",
      "acme_ultra_light_trail_running_price_2",
    ]);
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
  it("says who decides a field left to the agent as this server really judges it: the model, or in rules mode notable", () => {
    const definition = {
      fields: [
        { name: "title", type: "text", description: "t" },
        { name: "menu", type: "text", description: "m" },
        { name: "price", type: "number", description: "p" },
      ],
      materiality: {
        menu: { kind: "ask_agent", guidance: "new dishes matter" },
        price: { kind: "numeric", relative: 0.05 },
      },
    };
    expect(toDraftView(definition, undefined, "agent").rules).toEqual([
      "title: the agent decides",
      "menu: the agent decides — “new dishes matter”",
      "price: material on a 5% move or more",
    ]);
    // Rules mode has no agent: the fallback judge records any change of such a field as notable (judge/fallback.ts).
    const rules = toDraftView(definition, undefined, "rules").rules;
    expect(rules).toEqual([
      "title: any change is recorded as notable, for your review (no AI configured)",
      "menu: any change is recorded as notable, for your review (no AI configured)",
      "price: material on a 5% move or more",
    ]);
    expect(rules.join("\n")).not.toContain("agent");
  });
  it("learns the mode from this server's judge model when not told", () => {
    setModelOverrideForTests("judge", null);
    try {
      expect(toDraftView({ fields: [{ name: "title", type: "text" }] }).rules).toEqual([
        "title: any change is recorded as notable, for your review (no AI configured)",
      ]);
    } finally {
      resetAiForTests();
    }
    setModelOverrideForTests("judge", new MockLanguageModelV4());
    try {
      expect(toDraftView({ fields: [{ name: "title", type: "text" }] }).rules).toEqual(["title: the agent decides"]);
    } finally {
      resetAiForTests();
    }
  });
});

describe("the draft card's notable_signals line", () => {
  it("is the agent's with a model, and empty in rules mode", () => {
    expect(describeNotableSignals("agent")).toBe("notable_signals: the agent decides (always present)");
    expect(describeNotableSignals("rules")).not.toContain("agent");
    expect(describeNotableSignals("rules")).toContain("stays empty");
  });
});

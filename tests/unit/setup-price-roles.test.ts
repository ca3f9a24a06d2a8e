import { describe, expect, it } from "vitest";
import type { TTrackerDefinition } from "@/server/intelligence/definition";
import { checkDraftAnchors } from "@/server/intelligence/setup/check-draft-anchors";
import { labelAnchor, pricePattern } from "@/server/intelligence/setup/price-anchors";
import { readPriceRoles } from "@/server/intelligence/setup/price-roles";
import { readPageFromDocument } from "@/server/intelligence/setup/read-page-for-draft";

/** What each price in a page's text is (own, old, promotional, passing mention), read by meaning. */

const roles = (text: string, oldTexts: string[] = []) =>
  readPriceRoles(text, { oldTexts }).map((p) => [p.text, p.role]);

describe("price roles", () => {
  it("marks old prices by the words around them, in several languages, and by struck-through texts", () => {
    expect(roles("Was $199.99 Now $129.99")).toEqual([
      ["$199.99", "old"],
      ["$129.99", "own"],
    ]);
    expect(roles("UVP 199,99 €\nstatt 179,99 € nur 129,99 €")).toEqual([
      ["199,99 €", "old"],
      ["179,99 €", "old"],
      ["129,99 €", "own"],
    ]);
    expect(roles("Regular price: $80.00\nSale price: $60.00")).toEqual([
      ["$80.00", "old"],
      ["$60.00", "own"],
    ]);
    expect(roles("Prix : 49,90 € au lieu de 59,90 €")).toEqual([
      ["49,90 €", "own"],
      ["59,90 €", "old"],
    ]);
    expect(roles("$199.99 $129.99", ["$199.99"])).toEqual([
      ["$199.99", "old"],
      ["$129.99", "own"],
    ]);
  });

  it("marks promotional amounts, not the price on a line that mentions delivery after it", () => {
    expect(roles("Spend over £35 for free delivery")).toEqual([["£35", "promo"]]);
    expect(roles("Spend less than £35 on your order")).toEqual([["£35", "promo"]]);
    expect(roles("Free shipping on orders over $50")).toEqual([["$50", "promo"]]);
    expect(roles("Save $20 today")).toEqual([["$20", "promo"]]);
    expect(roles("$5.99 shipping")).toEqual([["$5.99", "promo"]]);
    expect(roles("Versandkostenfrei ab 50 €")).toEqual([["50 €", "promo"]]);
    expect(roles("$49.90 · Free delivery tomorrow")).toEqual([["$49.90", "own"]]);
    expect(roles("Now $79.99 (20% off)")).toEqual([["$79.99", "own"]]);
  });

  it("a price inside running text is a passing mention", () => {
    const prose = `${"The council said the scheme helps families. ".repeat(3)}A comparable kettle costs about $40 in most shops.`;
    expect(roles(prose)).toEqual([["$40", "mention"]]);
  });
});

describe("anchors", () => {
  it("writes the price pattern in the sample's notation and anchors it to a unique label", () => {
    expect(pricePattern("49,90 €")).toBe("\\d(?:[\\d.,'\\u00a0\\u202f ]*\\d)?\\s*€");
    expect(pricePattern("CA$129.99")).toBe("CA\\$\\s*\\d(?:[\\d.,'\\u00a0\\u202f ]*\\d)?");
    expect(pricePattern("26 – 50 €")).toBeNull();
    const text = "Pro plan $45 per month\nTeam plan $99 per month";
    const [, team] = readPriceRoles(text);
    expect(team && labelAnchor(text, team)?.extractor).toEqual({
      kind: "regex",
      pattern: "Team\\s+plan\\s*(\\$\\s*\\d(?:[\\d.,'\\u00a0\\u202f ]*\\d)?)",
    });
    // A label that is not unique anchors nothing.
    const twice = "Price: $45\nPrice: $99";
    expect(readPriceRoles(twice).map((p) => labelAnchor(twice, p))).toEqual([null, null]);
  });

  it("refuses /prices/N drafts only when the page has a better anchor", () => {
    const draft = (pointer: string): TTrackerDefinition => ({
      fields: [{ name: "price", type: "number", description: "p", extractor: { kind: "json_pointer", pointer } }],
      identityRule: { kind: "canonical_url" },
      materiality: {},
    });
    const withOffer = readPageFromDocument({
      mainText: "Spend over $35\n$12.00",
      offers: [{ name: "Lamp", price: 12, lowPrice: null, currency: "USD", availability: null }],
      availability: null,
    });
    expect(checkDraftAnchors(draft("/prices/1/amount"), withOffer).problems[0]).toMatch(
      /reads \/prices\/1\/amount, the 2nd price .* the product's own price \(12 USD\): JSON pointer \/offers\/0\/price/,
    );
    expect(checkDraftAnchors(draft("/offers/0/price"), withOffer).problems).toEqual([]);
    const bare = readPageFromDocument({ mainText: "$12.00", offers: [], availability: null, prices: [{ amount: 12 }] });
    expect(bare.ownPrice?.anchor?.kind).toBe("position");
    expect(checkDraftAnchors(draft("/prices/0/amount"), bare).problems).toEqual([]);
  });
});

describe("a price the page marks as one", () => {
  it("is not a passing mention even on a long line", () => {
    const line = `${"Hand-made in Lisbon from recycled brass, dimmable, with a two-metre fabric cable. ".repeat(2)}Only $89.00 today.`;
    expect(readPriceRoles(line).map((p) => p.role)).toEqual(["mention"]);
    expect(readPriceRoles(line, { priceTexts: ["$89.00"] }).map((p) => p.role)).toEqual(["own"]);
  });
});

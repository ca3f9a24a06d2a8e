import { describe, expect, it } from "vitest";
import { decisionAboutPrices, decisionWantsSet, setMemberNoun } from "@/server/intelligence/setup/decision-wants-set";

/**
 * Rules mode reads a decision as about a set (docs/sets.md) when it names a collection or asks what was added,
 * dropped or new among things; a single named plan or product is not one.
 */

describe("decisionWantsSet", () => {
  it.each([
    "did the rival drop or add any products?",
    "Which of the rival's products got cheaper?",
    "any new job postings?",
    "Did Acme open new stores or close any locations?",
    "Is anyone new among our competitors?",
    "Did they change their range this season?",
    "Has the catalogue grown?",
    "Which SKUs went out of stock?",
    "Any new openings on their careers page?",
    "Did they add any hires to the team page?",
    "Has anything been removed from their list of partners?",
  ])("“%s” is about a set", (decision) => {
    expect(decisionWantsSet(decision)).toBe(true);
  });

  it.each([
    "Is Acme undercutting us on the Pro plan?",
    "Will the price drop below $40?",
    "Did Acme drop the price of the Pro plan?",
    "Is the Gaggia Classic Pro back in stock?",
    "Are there any changes to the Team plan?",
    "Which plan is the cheapest?",
    "Which one is always cheapest?",
    "Did prices drop this week?",
    "Tell me when Acme's terms change",
    "Is there any news?",
  ])("“%s” is about one thing", (decision) => {
    expect(decisionWantsSet(decision)).toBe(false);
  });
});

describe("setMemberNoun", () => {
  it("names members by the decision's own collection", () => {
    expect(setMemberNoun("did the rival drop or add any products?")).toEqual({ one: "product", many: "products" });
    expect(setMemberNoun("any new job postings?")).toEqual({ one: "posting", many: "postings" });
    expect(setMemberNoun("Which SKUs went out of stock?")).toEqual({ one: "SKU", many: "SKUs" });
    expect(setMemberNoun("Did they change their range?")).toEqual({ one: "product", many: "products" });
    expect(setMemberNoun("Did they open any branches?")).toEqual({ one: "branch", many: "branches" });
  });

  it("singularises a plural it does not know, and says nothing for a single thing", () => {
    expect(setMemberNoun("Did they add any hires?")).toEqual({ one: "hire", many: "hires" });
    expect(setMemberNoun("Which new courses are offered?")).toEqual({ one: "course", many: "courses" });
    expect(setMemberNoun("Is Acme undercutting us on the Pro plan?")).toBeNull();
  });
});

describe("decisionAboutPrices", () => {
  it("is true for price words and currency signs, false otherwise", () => {
    expect(decisionAboutPrices("Which of the rival's products got cheaper?")).toBe(true);
    expect(decisionAboutPrices("Did any product's price fall?")).toBe(true);
    expect(decisionAboutPrices("Anything under $50 new?")).toBe(true);
    expect(decisionAboutPrices("did the rival drop or add any products?")).toBe(false);
    expect(decisionAboutPrices("any new job postings?")).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import type { TTrackerDefinition } from "@/server/intelligence/definition";
import type { TDeltas } from "@/server/intelligence/diff";
import { evaluateDeltas, pickUndecided, summariseVerdicts } from "@/server/intelligence/materiality";

const def: TTrackerDefinition = {
  fields: [
    { name: "rating", type: "number", description: "r" },
    { name: "review_count", type: "integer", description: "c" },
    { name: "price", type: "money", description: "p", currency: "USD" },
    { name: "stock", type: "integer", description: "s" },
    { name: "followers", type: "integer", description: "f" },
    { name: "seats", type: "integer", description: "both thresholds" },
    { name: "plan", type: "money", description: "either, stated", currency: "USD" },
    { name: "status", type: "string", description: "s" },
    { name: "hours", type: "string_list", description: "h" },
    { name: "description", type: "string", description: "d" },
  ],
  identityRule: { kind: "input" },
  materiality: {
    rating: { kind: "numeric", absolute: 0.2 },
    review_count: { kind: "numeric", absolute: 10 },
    price: { kind: "numeric", relative: 0.05 },
    stock: { kind: "numeric", absolute: 5, direction: "down" },
    followers: { kind: "numeric", absolute: 1000, relative: 0.1 },
    seats: { kind: "numeric", absolute: 10, relative: 0.1, combine: "both" },
    plan: { kind: "numeric", absolute: 10, relative: 0.05, combine: "either", direction: "down" },
    status: { kind: "any_change" },
    hours: { kind: "ignore" },
  },
};

function one(field: string, from: unknown, to: unknown) {
  const verdict = evaluateDeltas({ [field]: { from, to } } as TDeltas, def)[field];
  if (!verdict) throw new Error(`no verdict for ${field}`);
  return verdict;
}

describe("evaluateDeltas", () => {
  it("decides numeric rules by code with a readable reason", () => {
    expect(one("review_count", 312, 470)).toEqual({
      verdict: "material",
      decidedBy: "code",
      rule: { kind: "numeric", absolute: 10 },
      reason: "review_count: +158 ≥ 10 → material",
    });
    expect(one("rating", 4.4, 4.3)).toMatchObject({ verdict: "noise", reason: "rating: −0.1 < 0.2 → noise" });
  });

  it("is exact at the threshold despite float arithmetic", () => {
    expect(one("rating", 0.3, 0.1).verdict).toBe("material"); // 0.3 − 0.1 = 0.19999999999999998 in floats
    expect(one("rating", 4.4, 4.2).verdict).toBe("material");
    expect(one("rating", 4.4, 4.21).verdict).toBe("noise");
  });

  it("applies relative thresholds to money of the same currency", () => {
    expect(one("price", { amount: 100, currency: "USD" }, { amount: 94.5, currency: "USD" })).toMatchObject({
      verdict: "material",
      reason: "price: −5.5% ≥ 5% → material",
    });
    expect(one("price", { amount: 100, currency: "USD" }, { amount: 101, currency: "USD" })).toMatchObject({
      verdict: "noise",
      reason: "price: +1% < 5% → noise",
    });
    expect(one("price", { amount: 0, currency: "USD" }, { amount: 5, currency: "USD" }).verdict).toBe("material");
  });

  it("states measured ratios to one decimal, more only where one decimal would read as the threshold", () => {
    // 49 → 44 is −10.2040816…%: the reason people read is "−10.2%", not "−10.20408163%".
    expect(one("price", { amount: 49, currency: "USD" }, { amount: 44, currency: "USD" })).toMatchObject({
      verdict: "material",
      reason: "price: −10.2% ≥ 5% → material",
    });
    // 4.999% against 5%: one decimal would say "5% < 5%", so it shows the digits that make the verdict legible.
    expect(one("price", { amount: 100000, currency: "USD" }, { amount: 104999, currency: "USD" })).toMatchObject({
      verdict: "noise",
      reason: "price: +4.999% < 5% → noise",
    });
  });

  it("leaves comparisons the rule cannot make to the agent", () => {
    expect(one("price", { amount: 10, currency: "USD" }, { amount: 10, currency: "EUR" })).toMatchObject({
      verdict: "undecided",
      reason: "price: currency changed USD → EUR → the agent decides",
    });
    expect(one("rating", null, 4.5).verdict).toBe("undecided");
    expect(one("rating", 4.5, null).reason).toContain("disappeared");
  });

  it("honours direction", () => {
    expect(one("stock", 20, 10)).toMatchObject({ verdict: "material", reason: "stock: −10 ≥ 5 → material" });
    expect(one("stock", 10, 30)).toMatchObject({
      verdict: "noise",
      reason: "stock: +20 is a rise; only drops count → noise",
    });
  });

  it("is material when either threshold is met, and says which", () => {
    expect(one("followers", 100, 150)).toMatchObject({
      verdict: "material",
      reason: "followers: +50% ≥ 10% → material",
    });
    expect(one("followers", 100_000, 100_500)).toMatchObject({
      verdict: "noise",
      reason: "followers: +500 < 1000 and +0.5% < 10% → noise",
    });
  });

  it('with combine "both" is material only when the move crosses both thresholds', () => {
    expect(one("seats", 100, 115)).toMatchObject({
      verdict: "material",
      reason: "seats: +15 ≥ 10 and +15% ≥ 10% → material",
    });
    // $0.49-style trap the other way round: a big relative move that is small in absolute terms is noise.
    expect(one("seats", 20, 25)).toMatchObject({
      verdict: "noise",
      reason: "seats: +5 < 10 and +25% ≥ 10% (both must be crossed) → noise",
    });
    expect(one("seats", 1000, 1020)).toMatchObject({
      verdict: "noise",
      reason: "seats: +20 ≥ 10 and +2% < 10% (both must be crossed) → noise",
    });
  });

  it('with combine "either" stated explicitly means what a rule without combine means', () => {
    const usd = (amount: number) => ({ amount, currency: "USD" });
    expect(one("plan", usd(100), usd(94))).toMatchObject({ verdict: "material", reason: "plan: −6% ≥ 5% → material" });
    expect(one("plan", usd(1000), usd(989))).toMatchObject({
      verdict: "material",
      reason: "plan: −11 ≥ 10 → material",
    });
    expect(one("plan", usd(1000), usd(995)).verdict).toBe("noise");
    expect(one("plan", usd(100), usd(200)).verdict).toBe("noise"); // a rise; only drops count
  });

  it("handles any_change, ignore, ask_agent (default) and notable_signals", () => {
    const verdicts = evaluateDeltas(
      {
        status: { from: "open", to: "closed" },
        hours: { from: ["a"], to: ["b"] },
        description: { from: "x", to: "y" },
        notable_signals: { from: [], to: ["New owner"] },
        not_in_definition: { from: 1, to: 2 },
      },
      def,
    );
    expect(Object.fromEntries(Object.entries(verdicts).map(([k, v]) => [k, v.verdict]))).toEqual({
      status: "material",
      hours: "noise",
      description: "undecided",
      notable_signals: "undecided",
    });
    expect(verdicts.description?.rule).toEqual({ kind: "ask_agent" });
  });
});

describe("summariseVerdicts and pickUndecided", () => {
  it("ranks material > notable (incl. undecided) > noise > none", () => {
    expect(summariseVerdicts({ a: { verdict: "noise" }, b: { verdict: "material" } })).toBe("material");
    expect(summariseVerdicts({ a: { verdict: "noise" }, b: { verdict: "notable" } })).toBe("notable");
    expect(summariseVerdicts({ a: { verdict: "noise" }, b: { verdict: "undecided" } })).toBe("notable");
    expect(summariseVerdicts({ a: { verdict: "noise" } })).toBe("noise");
    expect(summariseVerdicts({})).toBe("none");
  });

  it("picks exactly the undecided deltas", () => {
    const deltas: TDeltas = { rating: { from: 4.4, to: 4.3 }, description: { from: "x", to: "y" } };
    expect(pickUndecided(deltas, evaluateDeltas(deltas, def))).toEqual({ description: { from: "x", to: "y" } });
  });
});

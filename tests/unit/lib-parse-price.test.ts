import { describe, expect, it } from "vitest";
import { findPrices, readAmount } from "@/server/lib/parse-price";

describe("readAmount", () => {
  it.each([
    ["1,299.00", undefined, 1299],
    ["1.299,00", undefined, 1299],
    ["1'234.50", undefined, 1234.5],
    ["1 234,50", undefined, 1234.5],
    ["31.500", "IDR", 31500],
    ["16,500", "USD", 16500],
    ["0.500", "EUR", 0.5],
    ["1.250", "KWD", 1.25],
    ["12.500", "BHD", 12.5],
    ["12,34,567.50", "INR", 1234567.5],
    ["34.992001", "GBP", 34.992001],
    ["19.–", "CHF", 19],
    ["2 499, 90", "PLN", 2499.9],
    ["249⁰⁰", "EUR", 249],
  ])("%s (%s) → %d", (text, currency, expected) => {
    expect(readAmount(text, currency)).toBe(expected);
  });

  it("refuses what is not one number", () => {
    expect(readAmount("")).toBeNull();
    expect(readAmount("1.234.567,8.9")).toBeNull();
    expect(readAmount("12,")).toBeNull();
    expect(readAmount("x12")).toBeNull();
  });
});

describe("findPrices", () => {
  it("reports offsets of the whole match, including a range's lower bound", () => {
    const text = "Preise: ab 26 bis 50 € pro Nacht";
    const [range] = findPrices(text);
    expect(range).toEqual({ amount: 26, currency: "EUR", range: { min: 26, max: 50 }, start: 11, end: 22 });
    expect(text.slice(range?.start, range?.end)).toBe("26 bis 50 €");
  });

  it("gives each token the free amount beside it", () => {
    expect(findPrices("10 € 20 €").map((p) => p.amount)).toEqual([10, 20]);
    expect(findPrices("€ 10 € 20").map((p) => p.amount)).toEqual([10, 20]);
    expect(findPrices("Art. 4711 € 19,99").map((p) => p.amount)).toEqual([19.99]);
    expect(findPrices("Buy 2 $10").map((p) => p.amount)).toEqual([10]);
  });

  it("never reads magnitudes, versions or percentages as plain prices", () => {
    for (const text of ["$5k", "$1.5M raised", "Rp 5 juta", "₹2 crore", "$1.2.3", "€ 20%", "$12:30"]) {
      expect(findPrices(text), text).toEqual([]);
    }
  });

  it("reads signs as discounts, not as range dashes", () => {
    expect(findPrices("Rabatt: -5,00 €").map((p) => p.amount)).toEqual([-5]);
    expect(findPrices("(−$5)").map((p) => p.amount)).toEqual([-5]);
    expect(findPrices("10-20 €").map((p) => [p.amount, p.range])).toEqual([[10, { min: 10, max: 20 }]]);
  });

  it("keeps prices on their line", () => {
    expect(findPrices("Chapter 12\n€ 5").map((p) => p.amount)).toEqual([5]);
    expect(findPrices("12\n€").map((p) => p.amount)).toEqual([]);
  });

  it("stays linear on hostile text and honours the limit", () => {
    expect(findPrices("€".repeat(200_000))).toEqual([]);
    expect(findPrices(`${"1 ".repeat(100_000)}€`)).toHaveLength(1);
    expect(findPrices("$1 ".repeat(1_000), { limit: 7 })).toHaveLength(7);
  });

  it("starts every scan at the start, whatever an earlier capped scan left behind (one shared token pattern)", () => {
    // A capped scan stops mid-text; the next text is shorter than where it stopped, then longer.
    expect(findPrices("filler text $1 $2 $3 $4", { limit: 1 }).map((p) => p.amount)).toEqual([1]);
    expect(findPrices("$5").map((p) => [p.amount, p.start])).toEqual([[5, 0]]);
    expect(findPrices("€7 and $8", { limit: 1 }).map((p) => p.amount)).toEqual([7]);
    expect(findPrices("£9 then $10 then ¥11").map((p) => p.amount)).toEqual([9, 10, 11]);
  });
});

import { describe, expect, it } from "vitest";
import { detectPrices, parseAmount } from "@/server/capabilities";

describe("parseAmount", () => {
  it.each([
    ["1,299.00", 1299],
    ["1.299,00", 1299],
    ["1 299,50", 1299.5],
    ["1'299.95", 1299.95],
    ["1,299", 1299],
    ["1.299", 1299],
    ["12,50", 12.5],
    ["12.5", 12.5],
    ["1,234,567.89", 1234567.89],
    ["1.234.567,89", 1234567.89],
    ["0.99", 0.99],
    ["42", 42],
  ])("%s → %d", (text, amount) => expect(parseAmount(text)).toBe(amount));
});

describe("detectPrices", () => {
  it("reads symbols before and after, codes before and after, both decimal conventions", () => {
    const text =
      "Was $1,299.00, now 1.199,00 €. UK: £12.50. CHF 1'299.50 or 12,50 EUR; JP ¥1,299; US$5; C$ 20; 30 USD.";
    expect(detectPrices(text)).toEqual([
      { amount: 1299, currency: "USD", text: "$1,299.00" },
      { amount: 1199, currency: "EUR", text: "1.199,00 €" },
      { amount: 12.5, currency: "GBP", text: "£12.50" },
      { amount: 1299.5, currency: "CHF", text: "CHF 1'299.50" },
      { amount: 12.5, currency: "EUR", text: "12,50 EUR" },
      { amount: 1299, currency: "JPY", text: "¥1,299" },
      { amount: 5, currency: "USD", text: "US$5" },
      { amount: 20, currency: "CAD", text: "C$ 20" },
      { amount: 30, currency: "USD", text: "30 USD" },
    ]);
  });

  it("handles no-break spaces and ignores numbers without a currency or codes inside words", () => {
    expect(detectPrices("Prix\u00a0: 1\u202f299,00\u00a0€")).toEqual([
      { amount: 1299, currency: "EUR", text: "1 299,00 €" },
    ]);
    expect(detectPrices("Model 2024, 15 items, ref EURO5 and USDT 12, SKU 12345")).toEqual([]);
  });

  it("is capped", () => {
    expect(detectPrices("$1 ".repeat(500), 10)).toHaveLength(10);
  });
});

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
    ["31.500", 31500],
    ["1,29,999", 129999],
    ["19,-", 19],
    ["1.837, 32", 1837.32],
    ["19⁹⁹", 19.99],
    ["3.3900", 3.39],
  ])("%s → %d", (text, amount) => expect(parseAmount(text)).toBe(amount));

  it("reads three-decimal dinars by their currency and refuses non-numbers", () => {
    expect(parseAmount("1.250", "KWD")).toBe(1.25);
    expect(parseAmount("1.250", "EUR")).toBe(1250);
    expect(parseAmount("12.")).toBeUndefined();
    expect(parseAmount("abc")).toBeUndefined();
  });
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

  it("reads local tokens and separators", () => {
    const text = "Rp 31.500 · 171900 руб. · 6 300 Р · 9 472 Ft · 145,00 lei · 69,50 TL · 950 грн. · 199 kr · 45,00 zł";
    expect(detectPrices(text).map((p) => [p.amount, p.currency])).toEqual([
      [31500, "IDR"],
      [171900, "RUB"],
      [6300, "RUB"],
      [9472, "HUF"],
      [145, "RON"],
      [69.5, "TRY"],
      [950, "UAH"],
      [199, "SEK"],
      [45, "PLN"],
    ]);
  });

  it("states ranges: the amount is the lower bound and both ends are given", () => {
    expect(detectPrices("From 26 to 50 €")).toEqual([
      { amount: 26, currency: "EUR", text: "26 to 50 €", range: { min: 26, max: 50 } },
    ]);
    expect(detectPrices("$10 – $20, or €5-8")).toEqual([
      { amount: 10, currency: "USD", text: "$10 – $20", range: { min: 10, max: 20 } },
      { amount: 5, currency: "EUR", text: "€5-8", range: { min: 5, max: 8 } },
    ]);
    // Descending pairs are two prices, not a range.
    expect(detectPrices("€ 10 – € 8").map((p) => p.range)).toEqual([undefined, undefined]);
  });

  it("reads split decimals as one amount", () => {
    expect(detectPrices("1.837, 32 €")).toEqual([{ amount: 1837.32, currency: "EUR", text: "1.837, 32 €" }]);
  });

  it("resolves ambiguous tokens with a currency hint, and adjacent codes over symbols", () => {
    expect(detectPrices("$19.99", 100, { currencyHint: "CAD" })[0]?.currency).toBe("CAD");
    expect(detectPrices("199 kr", 100, { currencyHint: "NOK" })[0]?.currency).toBe("NOK");
    expect(detectPrices("¥99", 100, { currencyHint: "CNY" })[0]?.currency).toBe("CNY");
    // A hint never overrides an unambiguous token.
    expect(detectPrices("€5", 100, { currencyHint: "USD" })[0]?.currency).toBe("EUR");
    expect(detectPrices("$123 AUD")[0]).toEqual({ amount: 123, currency: "AUD", text: "$123 AUD" });
  });
});

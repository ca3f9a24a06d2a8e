import { describe, expect, it } from "vitest";
import { detectPrices } from "@/server/capabilities";
import type { TField } from "@/server/intelligence/definition";
import { coerceValue, parseMoneyText, parseNumberText } from "@/server/intelligence/fill";
import { PRICE_STRINGS } from "@/tests/fixtures/corpus/price-strings";

// One price parser (server/lib/parse-price.ts): ≥ 97 % of the table read right, no price invented where there is none,
// and the scraper (detectPrices) and the fill step (parseNumberText, money coercion) read alike.
const withPrice = PRICE_STRINGS.filter((r) => r.amount !== null);
const withoutPrice = PRICE_STRINGS.filter((r) => r.amount === null);

describe("price-strings corpus", () => {
  it("is a real table: 300+ rows covering the local notations, ranges and negatives", () => {
    expect(PRICE_STRINGS.length).toBeGreaterThanOrEqual(300);
    expect(withoutPrice.length).toBeGreaterThanOrEqual(50);
    for (const r of withPrice) expect(r.currency, r.text).toMatch(/^[A-Z]{3}$/);
    for (const r of withoutPrice) expect(r.currency, r.text).toBeNull();
    expect(new Set(PRICE_STRINGS.map((r) => r.text)).size).toBe(PRICE_STRINGS.length);
    const notations = [
      "руб.",
      "₽",
      " Р",
      "Rp",
      "Rs.",
      "₹",
      " Ft",
      "lei",
      " TL",
      "₺",
      "грн",
      "₴",
      " kr",
      "zł",
      "Kč",
      "R$",
      "CHF",
      "Fr.",
      "¥",
      "円",
      "元",
      "₩",
      "₫",
      "₱",
      "฿",
      "RM",
      "S$",
      "HK$",
      "A$",
      "C$",
      "NZ$",
      "R ",
      "E£",
      "د.إ",
      "﷼",
      "'",
      "\u00a0",
      "\u2009",
      "⁹",
      ",-",
      ".–",
    ];
    for (const n of notations)
      expect(
        withPrice.some((r) => r.text.includes(n)),
        n,
      ).toBe(true);
    expect(PRICE_STRINGS.filter((r) => r.note?.includes("range")).length).toBeGreaterThanOrEqual(20);
  });

  it("reads ≥ 97 % of the priced strings with the right amount and currency", () => {
    const wrong = withPrice.filter((r) => {
      const first = detectPrices(r.text)[0];
      return first?.amount !== r.amount || first?.currency !== r.currency;
    });
    const accuracy = 1 - wrong.length / withPrice.length;
    expect(
      accuracy,
      `wrong: ${wrong.map((r) => `${r.text} → ${JSON.stringify(detectPrices(r.text)[0])}`).join("; ")}`,
    ).toBeGreaterThanOrEqual(0.97);
  });

  it("finds no amount at all in strings without a price", () => {
    const invented = withoutPrice
      .map((r) => ({ text: r.text, found: detectPrices(r.text) }))
      .filter((r) => r.found.length > 0);
    expect(invented).toEqual([]);
  });

  it("reads ranges as their lower bound and states both ends", () => {
    for (const r of PRICE_STRINGS.filter((row) => row.note === "range")) {
      const first = detectPrices(r.text)[0];
      expect(first?.range?.min, r.text).toBe(r.amount);
      expect(first?.range?.max ?? 0, r.text).toBeGreaterThan(r.amount ?? 0);
    }
  });

  it("detectPrices and parseNumberText (and money coercion) agree on every row", () => {
    const money: TField = { name: "price", type: "money", description: "p", currency: "USD" };
    for (const r of PRICE_STRINGS) {
      const found = detectPrices(r.text);
      const first = found[0];
      if (found.length === 1 && first) {
        expect(parseNumberText(r.text), r.text).toBe(first.amount);
        expect(coerceValue(money, r.text), r.text).toEqual({
          ok: true,
          value: { amount: first.amount, currency: first.currency },
        });
      } else if (found.length > 1) {
        // Several prices: fill refuses rather than guesses which one the field means.
        expect(parseNumberText(r.text), r.text).toBeNull();
        expect(coerceValue(money, r.text).ok, r.text).toBe(false);
      } else {
        // No price: fill never names a currency the text does not show.
        expect(parseMoneyText(r.text)?.currency ?? null, r.text).toBeNull();
      }
    }
  });
});

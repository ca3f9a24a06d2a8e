import { findPrices, readAmount } from "../../lib/parse-price";

/**
 * Reads exactly one number out of display text: "4.3" → 4.3, "$1,299.00" → 1299, "1.299,00 €" → 1299,
 * "312 reviews" → 312, "−2" → -2. Text with no number, or with several ("4.3 out of 5"), is refused
 * rather than guessed.
 *
 * A price in the text (an amount next to a currency token) is read by the shared price reader
 * (server/lib/parse-price.ts), the same one the scraper's detectPrices uses, so "Rp 31.500" is 31500
 * in both; other numbers beside it ("2 items") do not count. A range ("from 26 to 50 €") reads as
 * its lower bound; two separate prices ("was $20, now $15") are refused.
 *
 * Without a currency token: with `currencyHint` (a money field's currency) the number is read by the
 * same price rules ("31.500" with IDR → 31500); without one, when both , and . appear the last one is
 * the decimal point, and a lone separator followed by three digits is a thousands separator only for ","
 * ("1,299") or when repeated ("1.299.000") — "1.299" stays 1.299.
 */
export function parseNumberText(text: string, currencyHint?: string): number | null {
  return parseMoneyText(text, currencyHint)?.amount ?? null;
}

/**
 * Like parseNumberText, also naming the currency: the one the text shows (ambiguous "$", "kr", "¥"
 * resolved by the hint), else the hint itself, else null when the text shows none.
 */
export function parseMoneyText(
  text: string,
  currencyHint?: string,
): { amount: number; currency: string | null; range?: { min: number; max: number } } | null {
  const prices = findPrices(text, { currencyHint, limit: 2 });
  if (prices.length > 1) return null;
  const price = prices[0];
  if (price) return { amount: price.amount, currency: price.currency, ...(price.range ? { range: price.range } : {}) };
  const tokens = text.match(NUMBER_TOKEN) ?? [];
  if (tokens.length !== 1) return null;
  const amount = currencyHint ? parseWithHint(tokens[0] as string, currencyHint) : parseToken(tokens[0] as string);
  return amount === null ? null : { amount, currency: currencyHint?.toUpperCase() ?? null };
}

const NUMBER_TOKEN = /[-−+]?(?:\d{1,3}(?:[ \u00a0\u202f'’]\d{3})+(?:[.,]\d+)?|\d(?:[\d.,]*\d)?)/g;

function parseWithHint(token: string, currency: string): number | null {
  const negative = /^[-−]/.test(token);
  const value = readAmount(token.replace(/^[-−+]/, ""), currency.toUpperCase());
  return value === null ? null : negative ? -value : value;
}

function parseToken(token: string): number | null {
  const negative = token.startsWith("-") || token.startsWith("−");
  const body = token.replace(/^[-−+]/, "").replace(/[ \u00a0\u202f'’]/g, "");
  const lastDot = body.lastIndexOf(".");
  const lastComma = body.lastIndexOf(",");
  let normalised: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? "." : ",";
    const thousands = decimal === "." ? "," : ".";
    normalised = body.split(thousands).join("").replace(decimal, ".");
  } else if (lastComma >= 0) {
    normalised = isThousandsGrouped(body, ",") ? body.replace(/,/g, "") : body.replace(",", ".");
  } else if (lastDot >= 0) {
    // "1.299" stays 1.299 (English decimal); only two or more groups (1.299.000) read as thousands.
    normalised = (body.match(/\./g)?.length ?? 0) > 1 && isThousandsGrouped(body, ".") ? body.replace(/\./g, "") : body;
  } else {
    normalised = body;
  }
  if (!/^\d+(\.\d+)?$/.test(normalised)) return null;
  const value = Number(normalised);
  if (!Number.isFinite(value)) return null;
  return negative ? -value : value;
}

function isThousandsGrouped(body: string, separator: string): boolean {
  const groups = body.split(separator);
  return /^\d{1,3}$/.test(groups[0] ?? "") && groups.slice(1).every((g) => /^\d{3}$/.test(g));
}

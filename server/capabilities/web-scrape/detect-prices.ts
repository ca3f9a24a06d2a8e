import { z } from "zod";
import { collapseWhitespace } from "../../lib/collapse-whitespace";
import { findPrices, readAmount } from "../../lib/parse-price";

export const ZDetectedPriceSchema = z.object({
  /** The amount; for a range ("from 26 to 50 €") its lower bound, with both ends in `range`. */
  amount: z.number(),
  /**
   * ISO 4217 code. Ambiguous tokens read as their most common currency ("$" USD, "kr" SEK, "¥" JPY,
   * "Rs" INR) unless prefixed (C$, CN¥…), named by an adjacent code ("$12 AUD") or resolved by the hint.
   */
  currency: z.string(),
  /** The matched text, whitespace collapsed (e.g. "1.299,00 €"). */
  text: z.string(),
  /** Present only when the text states a range; `amount` is then `min` (the lower bound, by rule). */
  range: z.object({ min: z.number(), max: z.number() }).optional(),
});
export type TDetectedPrice = z.infer<typeof ZDetectedPriceSchema>;

export type TDetectPricesOptions = {
  /** A currency known from the page (microdata, og:price:currency…) that resolves "$", "kr", "¥". */
  currencyHint?: string;
};

/**
 * Reads the number of a price: "1,299.00", "1.299,00", "1 299,50", "1'299.95", "12,50", "Rp 31.500".
 * The shared reader of server/lib/parse-price.ts, so fill's parseNumberText reads the same numbers.
 */
export function parseAmount(text: string, currency?: string): number | undefined {
  return readAmount(text, currency) ?? undefined;
}

/**
 * Every price (amount next to a currency token) in page text, in order. Linear, capped so a
 * catalogue page cannot blow up the document. Numbers without a currency are never reported.
 */
export function detectPrices(text: string, limit = 100, options: TDetectPricesOptions = {}): TDetectedPrice[] {
  return findPrices(text, { limit, currencyHint: options.currencyHint }).map((p) => ({
    amount: p.amount,
    currency: p.currency,
    text: collapseWhitespace(text.slice(p.start, p.end)),
    ...(p.range ? { range: p.range } : {}),
  }));
}

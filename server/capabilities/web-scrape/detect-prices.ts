import { z } from "zod";

export const ZDetectedPriceSchema = z.object({
  amount: z.number(),
  /** ISO 4217 code. "$" is read as USD and "¥" as JPY unless prefixed (C$, CN¥…). */
  currency: z.string(),
  /** The matched text, whitespace collapsed (e.g. "1.299,00 €"). */
  text: z.string(),
});
export type TDetectedPrice = z.infer<typeof ZDetectedPriceSchema>;

const SYMBOLS: Record<string, string> = {
  $: "USD",
  US$: "USD",
  C$: "CAD",
  CA$: "CAD",
  A$: "AUD",
  AU$: "AUD",
  NZ$: "NZD",
  HK$: "HKD",
  S$: "SGD",
  R$: "BRL",
  MX$: "MXN",
  "€": "EUR",
  "£": "GBP",
  "¥": "JPY",
  "CN¥": "CNY",
  "￥": "JPY",
  "₹": "INR",
  "₩": "KRW",
  "₽": "RUB",
  "₺": "TRY",
  "₪": "ILS",
  "฿": "THB",
  "₫": "VND",
  "₱": "PHP",
  "₴": "UAH",
  zł: "PLN",
  Kč: "CZK",
};

const CODES = [
  "USD",
  "EUR",
  "GBP",
  "JPY",
  "CHF",
  "CAD",
  "AUD",
  "NZD",
  "SEK",
  "NOK",
  "DKK",
  "PLN",
  "CZK",
  "HUF",
  "RON",
  "BGN",
  "ISK",
  "INR",
  "CNY",
  "RMB",
  "HKD",
  "SGD",
  "KRW",
  "TWD",
  "THB",
  "MYR",
  "IDR",
  "PHP",
  "VND",
  "BRL",
  "MXN",
  "ARS",
  "CLP",
  "COP",
  "ZAR",
  "TRY",
  "RUB",
  "UAH",
  "ILS",
  "AED",
  "SAR",
];

const escapeRe = (s: string) => s.replace(/[$.*+?^()[\]{}|\\]/g, "\\$&");
// Longest first so "US$" wins over "$".
const SYMBOL_RE = Object.keys(SYMBOLS)
  .sort((a, b) => b.length - a.length)
  .map(escapeRe)
  .join("|");
const CODE_RE = CODES.join("|");
// Grouped thousands (1,299 / 1.299 / 1 299 / 1'299) with optional decimals, or plain digits.
const NUM_RE = "\\d{1,3}(?:[,.'\\u00a0\\u202f ]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?";

const PRICE_RE = new RegExp(
  `(?:(?<sym1>${SYMBOL_RE})|(?<![A-Za-z])(?<code1>${CODE_RE}))[ \\u00a0]?(?<n1>${NUM_RE})(?![\\d])` +
    `|(?<![\\d.,])(?<n2>${NUM_RE})[ \\u00a0]?(?:(?<sym2>${SYMBOL_RE})|(?<code2>${CODE_RE})(?![A-Za-z]))`,
  "g",
);

/**
 * Reads "1,299.00", "1.299,00", "1 299,5", "12.5", "1,299" (thousands) and "12,50" (decimal).
 * The last separator followed by 1–2 digits is the decimal point; any other separator groups thousands.
 */
export function parseAmount(text: string): number | undefined {
  const clean = text.replace(/[\s\u00a0\u202f']/g, "");
  const m = /[.,](\d{1,2})$/.exec(clean);
  let intPart = clean;
  let frac = "";
  if (m) {
    intPart = clean.slice(0, m.index);
    frac = m[1] ?? "";
  }
  const digits = intPart.replace(/[.,]/g, "");
  if (!/^\d+$/.test(digits)) return undefined;
  const value = Number(frac ? `${digits}.${frac}` : digits);
  return Number.isFinite(value) ? value : undefined;
}

/** Linear scan with one global regex; caps the list so a catalogue page cannot blow up the document. */
export function detectPrices(text: string, limit = 100): TDetectedPrice[] {
  const out: TDetectedPrice[] = [];
  PRICE_RE.lastIndex = 0;
  for (let m = PRICE_RE.exec(text); m; m = PRICE_RE.exec(text)) {
    const g = m.groups ?? {};
    const num = g.n1 ?? g.n2;
    const token = g.sym1 ?? g.code1 ?? g.sym2 ?? g.code2;
    if (!num || !token) continue;
    const amount = parseAmount(num);
    const currency = SYMBOLS[token] ?? (token === "RMB" ? "CNY" : token);
    if (amount === undefined) continue;
    out.push({ amount, currency, text: m[0].replace(/[\s\u00a0\u202f]+/g, " ").trim() });
    if (out.length >= limit) break;
  }
  return out;
}

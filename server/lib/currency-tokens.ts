/**
 * Currency tokens as they appear next to amounts on real pages: ISO codes, symbols and local
 * abbreviations. Pure data plus the rule that resolves an ambiguous token ("$", "kr", "¥", "Rs")
 * against a currency hint; parse-price.ts reads it. Kept under server/lib so both the scraper
 * (capabilities) and the fill step (intelligence) use one table (docs/design.md §2 foundation).
 */

/** Where a token sits relative to its amount: "$ 5" is prefix, "5 zł" suffix. */
export type TTokenPosition = "prefix" | "suffix" | "both";

export type TCurrencyToken = {
  /** ISO 4217 code read when no hint applies. */
  iso: string;
  position: TTokenPosition;
  /** Currencies the same token also denotes; a hint naming one of them wins over `iso`. */
  alternatives?: readonly string[];
  /** Only ever on its usual side (otherwise a "prefix" token may also follow a lone amount: "10 $"). */
  only?: boolean;
  /**
   * Weak tokens are also ordinary words or units ("R" rating, "6 Ft" tall, "Fr." Friday):
   * they count only next to an amount that has a decimal part or at least three integer digits,
   * and only on their usual side.
   */
  weak?: boolean;
};

const DOLLARS = [
  "USD",
  "CAD",
  "AUD",
  "NZD",
  "SGD",
  "HKD",
  "TWD",
  "MXN",
  "ARS",
  "CLP",
  "COP",
  "UYU",
  "DOP",
  "JMD",
  "TTD",
  "BSD",
  "BBD",
  "BZD",
  "BMD",
  "KYD",
  "FJD",
  "LRD",
  "NAD",
  "SBD",
  "SRD",
  "XCD",
  "BND",
  "GYD",
] as const;
const KRONER = ["SEK", "NOK", "DKK", "ISK"] as const;
const YEN_YUAN = ["JPY", "CNY"] as const;
const RUPEES = ["INR", "PKR", "LKR", "NPR", "MUR", "SCR"] as const;
const RIALS = ["SAR", "IRR", "YER", "OMR", "QAR"] as const;
const POUNDS = ["GBP", "EGP", "GIP", "FKP", "SHP"] as const;
const ROUBLES = ["RUB", "BYN"] as const;

const t = (
  iso: string,
  position: TTokenPosition,
  extra: Omit<TCurrencyToken, "iso" | "position"> = {},
): TCurrencyToken => ({ iso, position, ...extra });

/** Every spelling is matched case-sensitively; list the variants that occur. */
export const CURRENCY_TOKENS: Readonly<Record<string, TCurrencyToken>> = {
  // Dollars. A bare "$" is USD unless the hint is another dollar.
  $: t("USD", "prefix", { alternatives: DOLLARS }),
  US$: t("USD", "prefix"),
  "US $": t("USD", "prefix"),
  U$S: t("USD", "prefix"),
  C$: t("CAD", "prefix"),
  CA$: t("CAD", "prefix"),
  "CA $": t("CAD", "prefix"),
  Can$: t("CAD", "prefix"),
  A$: t("AUD", "prefix"),
  AU$: t("AUD", "prefix"),
  "AU $": t("AUD", "prefix"),
  NZ$: t("NZD", "prefix"),
  "NZ $": t("NZD", "prefix"),
  HK$: t("HKD", "prefix"),
  "HK $": t("HKD", "prefix"),
  S$: t("SGD", "prefix"),
  NT$: t("TWD", "prefix"),
  MX$: t("MXN", "prefix"),
  Mex$: t("MXN", "prefix"),
  R$: t("BRL", "prefix"),
  // Euro, pound, franc.
  "€": t("EUR", "both"),
  Euro: t("EUR", "suffix", { only: true }),
  Euros: t("EUR", "suffix", { only: true }),
  euro: t("EUR", "suffix", { only: true }),
  euros: t("EUR", "suffix", { only: true }),
  EURO: t("EUR", "suffix", { only: true }),
  // Lowercase codes seen after amounts ("140,00 pln"); uppercase codes are matched generically.
  eur: t("EUR", "suffix", { only: true }),
  usd: t("USD", "suffix", { only: true }),
  chf: t("CHF", "suffix", { only: true }),
  pln: t("PLN", "suffix", { only: true }),
  czk: t("CZK", "suffix", { only: true }),
  sek: t("SEK", "suffix", { only: true }),
  nok: t("NOK", "suffix", { only: true }),
  dkk: t("DKK", "suffix", { only: true }),
  huf: t("HUF", "suffix", { only: true }),
  ron: t("RON", "suffix", { only: true }),
  rub: t("RUB", "suffix", { only: true }),
  uah: t("UAH", "suffix", { only: true }),
  "£": t("GBP", "prefix", { alternatives: POUNDS }),
  "E£": t("EGP", "prefix"),
  "ج.م": t("EGP", "both"),
  "ج.م.": t("EGP", "both"),
  "Fr.": t("CHF", "both", { weak: true }),
  "SFr.": t("CHF", "both"),
  "sFr.": t("CHF", "both"),
  // Yen, yuan, won, dong.
  "¥": t("JPY", "prefix", { alternatives: YEN_YUAN }),
  "￥": t("JPY", "prefix", { alternatives: YEN_YUAN }),
  "CN¥": t("CNY", "prefix"),
  円: t("JPY", "suffix", { only: true }),
  元: t("CNY", "suffix", { only: true }),
  RMB: t("CNY", "both"),
  "₩": t("KRW", "prefix"),
  원: t("KRW", "suffix", { only: true }),
  "₫": t("VND", "both"),
  đ: t("VND", "suffix", { only: true }),
  đồng: t("VND", "suffix", { only: true }),
  VNĐ: t("VND", "suffix"),
  // South and South-East Asia.
  "₹": t("INR", "prefix"),
  Rs: t("INR", "prefix", { alternatives: RUPEES }),
  "Rs.": t("INR", "prefix", { alternatives: RUPEES }),
  "₨": t("INR", "prefix", { alternatives: RUPEES }),
  Rp: t("IDR", "prefix"),
  "Rp.": t("IDR", "prefix"),
  RM: t("MYR", "prefix"),
  "₱": t("PHP", "prefix"),
  "฿": t("THB", "both"),
  บาท: t("THB", "suffix"),
  "৳": t("BDT", "both"),
  // Eastern Europe and Central Asia.
  "₽": t("RUB", "suffix"),
  руб: t("RUB", "suffix", { alternatives: ROUBLES }),
  "руб.": t("RUB", "suffix", { alternatives: ROUBLES }),
  рублей: t("RUB", "suffix"),
  рубля: t("RUB", "suffix"),
  "р.": t("RUB", "suffix", { alternatives: ROUBLES }),
  Р: t("RUB", "suffix", { only: true }),
  грн: t("UAH", "suffix"),
  "грн.": t("UAH", "suffix"),
  "₴": t("UAH", "both"),
  zł: t("PLN", "both"),
  "zł.": t("PLN", "both"),
  złotych: t("PLN", "suffix", { only: true }),
  Zł: t("PLN", "both"),
  Kč: t("CZK", "suffix"),
  Ft: t("HUF", "suffix", { weak: true }),
  lei: t("RON", "suffix", { alternatives: ["MDL"] }),
  Lei: t("RON", "suffix", { alternatives: ["MDL"] }),
  лв: t("BGN", "suffix"),
  "лв.": t("BGN", "suffix"),
  "дин.": t("RSD", "suffix"),
  din: t("RSD", "suffix"),
  "₸": t("KZT", "both"),
  "₾": t("GEL", "both"),
  "₼": t("AZN", "both"),
  TL: t("TRY", "both"),
  "₺": t("TRY", "both"),
  // Nordics: "kr" alone is SEK unless the hint is another krona/krone; "199:-" is Swedish.
  kr: t("SEK", "both", { alternatives: KRONER }),
  "kr.": t("SEK", "both", { alternatives: KRONER }),
  Kr: t("SEK", "both", { alternatives: KRONER }),
  "Kr.": t("SEK", "both", { alternatives: KRONER }),
  ":-": t("SEK", "suffix", { alternatives: KRONER, only: true }),
  // Middle East and Africa.
  "₪": t("ILS", "both"),
  'ש"ח': t("ILS", "suffix"),
  "ש״ח": t("ILS", "suffix"),
  "د.إ": t("AED", "both"),
  "د.إ.": t("AED", "both"),
  "Dhs.": t("AED", "prefix"),
  Dhs: t("AED", "prefix"),
  "ر.س": t("SAR", "both"),
  "ر.س.": t("SAR", "both"),
  "ر.ق": t("QAR", "both"),
  "د.ك": t("KWD", "both"),
  KD: t("KWD", "prefix", { weak: true }),
  "﷼": t("SAR", "both", { alternatives: RIALS }),
  R: t("ZAR", "prefix", { weak: true }),
  "₦": t("NGN", "prefix"),
  KSh: t("KES", "prefix"),
  "GH₵": t("GHS", "prefix"),
  "₵": t("GHS", "prefix"),
  // Latin America (the "$" countries are reached through the hint).
  "S/": t("PEN", "prefix"),
  "S/.": t("PEN", "prefix"),
  "₡": t("CRC", "prefix"),
  "₲": t("PYG", "both"),
};

/** Non-ISO codes that shops print as if they were. */
export const CODE_ALIASES: Readonly<Record<string, string>> = { RMB: "CNY", NTD: "TWD", YTL: "TRY" };

/**
 * Uppercase ISO codes that are also common words or abbreviations ("TRY 30 DAYS", "ALL 5", "TOP 10"):
 * read only after an amount ("299 TRY"), never before one. Test and fund codes are not currencies.
 */
const SUFFIX_ONLY_CODES = new Set([
  "ALL",
  "TOP",
  "CUP",
  "PEN",
  "TRY",
  "BOB",
  "GEL",
  "MAD",
  "SOS",
  "AMD",
  "MOP",
  "LAK",
  "BAM",
  "PHP", // "PHP 8.2" is a language version far more often than pesos; "₱" and "1,299 PHP" still read
]);
const NOT_PRICES = /^X(?:AG|AU|BA|BB|BC|BD|DR|PD|PT|SU|TS|UA|XX)$|^(?:BOV|CHE|CHW|CLF|COU|MXV|USN|UYI|UYW)$/;

const ISO_CODES: ReadonlySet<string> = new Set(
  (typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("currency") : []).filter(
    (c) => !NOT_PRICES.test(c),
  ),
);

/** Token info for a three-letter uppercase code, or undefined when it is not a currency. */
export function codeToken(code: string): TCurrencyToken | undefined {
  const iso = CODE_ALIASES[code] ?? code;
  if (!ISO_CODES.has(iso)) return undefined;
  return SUFFIX_ONLY_CODES.has(code) ? { iso, position: "suffix", only: true } : { iso, position: "both" };
}

/** Whether `code` is a known ISO 4217 currency code (uppercase). */
export function isCurrencyCode(code: string): boolean {
  return ISO_CODES.has(code);
}

/** The ISO code a token denotes, given an optional hint (e.g. the field's or the page's currency). */
export function resolveCurrency(token: TCurrencyToken, hint?: string): string {
  const h = hint?.toUpperCase();
  if (h && token.alternatives?.includes(h)) return h;
  return token.iso;
}

/**
 * Three-decimal dinars write fils after the point: "KWD 1.250" is one dinar 250 fils, where
 * "Rp 31.500", "₫ 25.000", "1.299 €" group thousands (parse-price.ts readAmount).
 */
export const THREE_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(["KWD", "BHD", "OMR", "JOD", "TND", "LYD", "IQD"]);

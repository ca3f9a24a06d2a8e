import { z } from "zod";
import { normaliseAvailability, type TAvailability, ZAvailabilitySchema } from "./availability";
import type { TMicrodataItem } from "./scan-html";
import { findStockLine } from "./stock-line";

/**
 * The normalised offers + availability section of the structured document (docs/design.md §5): what the
 * page's structured data says the product costs and whether it can be bought, read from JSON-LD,
 * microdata and OpenGraph `product:*` tags, in that order. Only stable facts are kept — no
 * `priceValidUntil`, no URLs, no timestamps — so the section moves the hash exactly when a price or
 * an availability moves.
 */

export const ZOfferSchema = z.object({
  source: z.enum(["json-ld", "microdata", "opengraph"]),
  /** The product's name when the structured data gives one. */
  name: z.string().nullable(),
  price: z.number().nullable(),
  /** AggregateOffer / price ranges. */
  lowPrice: z.number().nullable(),
  highPrice: z.number().nullable(),
  /** ISO 4217 code as the page states it (uppercased), or null. */
  currency: z.string().nullable(),
  availability: ZAvailabilitySchema.nullable(),
});
export type TOffer = z.infer<typeof ZOfferSchema>;

export const ZAvailabilityInfoSchema = z.object({
  value: ZAvailabilitySchema,
  /** Where it was read: an offer's structured data, or a stock phrase in the visible text. */
  source: z.enum(["json-ld", "microdata", "opengraph", "text"]),
  /** The phrase found in the text (source "text" only), lowercase. */
  phrase: z.string().nullable(),
});
export type TAvailabilityInfo = z.infer<typeof ZAvailabilityInfoSchema>;

const MAX_OFFERS = 50;
const MAX_JSON_LD_VISITS = 5_000;
const MAX_JSON_LD_DEPTH = 12;

type TObj = Record<string, unknown>;
const isObj = (v: unknown): v is TObj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Key lookup ignoring case ("Offers", "PRICE"): pages are inconsistent, JSON-LD consumers are lenient. */
function get(obj: TObj, key: string): unknown {
  if (Object.hasOwn(obj, key)) return obj[key];
  const lower = key.toLowerCase();
  for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) return obj[k];
  return undefined;
}

const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/** "Offer", "schema:Offer", "http://schema.org/Offer" → "offer". */
function typesOf(obj: TObj): string[] {
  return asList(get(obj, "@type"))
    .filter((t): t is string => typeof t === "string")
    .map((t) => (t.split(/[/#:]/).pop() ?? "").toLowerCase());
}

const CURRENCY_SYMBOLS: Record<string, string> = {
  $: "USD",
  "€": "EUR",
  "£": "GBP",
  "¥": "JPY",
  "₹": "INR",
  "₩": "KRW",
  "₽": "RUB",
  "₺": "TRY",
  "₪": "ILS",
  "₫": "VND",
  "₴": "UAH",
  zł: "PLN",
};

/** An ISO code as given ("usd" → "USD"), a symbol, or a code inside a price text ("AUD 12.50"). */
export function readCurrency(v: unknown): string | null {
  const s = typeof first(v) === "string" ? (first(v) as string).trim() : "";
  if (!s) return null;
  if (/^[A-Za-z]{3}$/.test(s)) return s.toUpperCase();
  const code = /(?:^|[^A-Za-z])([A-Z]{3})(?:[^A-Za-z]|$)/.exec(s);
  if (code) return code[1] as string;
  for (const [symbol, iso] of Object.entries(CURRENCY_SYMBOLS)) if (s.includes(symbol)) return iso;
  return null;
}

/**
 * A price from structured data. Numbers as they are; strings lose symbols, codes and spaces; with both
 * separators the last is the decimal one ("1.299,00", "1,299.00"); a lone comma is decimal unless three
 * digits follow it ("12,99" vs "1,299"); a lone dot is decimal (schema.org's notation).
 */
export function readPrice(v: unknown): number | null {
  let x = first(v);
  if (isObj(x)) x = get(x, "@value");
  if (typeof x === "number") return Number.isFinite(x) ? x : null;
  if (typeof x !== "string") return null;
  let s = x.replace(/[^\d.,-]/g, "");
  if (!/\d/.test(s)) return null;
  const lastComma = s.lastIndexOf(",");
  const lastDot = s.lastIndexOf(".");
  if (lastComma >= 0 && lastDot >= 0) {
    const decimal = lastComma > lastDot ? "," : ".";
    const thousands = decimal === "," ? "." : ",";
    s = s.replaceAll(thousands, "").replace(decimal, ".");
  } else if (lastComma >= 0) {
    const commas = s.split(",").length - 1;
    const after = s.length - lastComma - 1;
    s = commas === 1 && after !== 3 ? s.replace(",", ".") : s.replaceAll(",", "");
  } else if (s.split(".").length > 2) {
    s = s.replaceAll(".", "");
  }
  const n = Number.parseFloat(s);
  return Number.isFinite(n) ? n : null;
}

/** Prices shown struck through or as "was" never stand for what the product costs now. */
const OLD_PRICE_TYPES = new Set(["strikethroughprice", "listprice", "msrp", "srp", "wasprice"]);

function offerFromJsonLd(o: TObj, name: string | null): TOffer | null {
  let price = readPrice(get(o, "price"));
  let lowPrice = readPrice(get(o, "lowPrice"));
  let highPrice = readPrice(get(o, "highPrice"));
  let currency = readCurrency(get(o, "priceCurrency"));
  if (price === null) {
    const specs = asList(get(o, "priceSpecification")).filter(isObj);
    const current =
      specs.find((s) => {
        const type = String(first(get(s, "priceType")) ?? "")
          .split(/[/#:]/)
          .pop()
          ?.toLowerCase();
        return !OLD_PRICE_TYPES.has(type ?? "") && readPrice(get(s, "price")) !== null;
      }) ?? specs.find((s) => readPrice(get(s, "minPrice")) !== null);
    if (current) {
      price = readPrice(get(current, "price"));
      lowPrice ??= readPrice(get(current, "minPrice"));
      highPrice ??= readPrice(get(current, "maxPrice"));
      currency ??= readCurrency(get(current, "priceCurrency"));
    }
  }
  const availability = normaliseAvailability(first(get(o, "availability")));
  if (price === null && lowPrice === null && highPrice === null && availability === null) return null;
  return { source: "json-ld", name, price, lowPrice, highPrice, currency, availability };
}

const textOf = (v: unknown): string | null => {
  const x = first(v);
  return typeof x === "string" && x.trim() ? x.trim().replace(/\s+/g, " ").slice(0, 300) : null;
};

function offersFromJsonLd(entities: unknown[]): TOffer[] {
  const out: TOffer[] = [];
  let visits = 0;
  const visit = (value: unknown, name: string | null, viaOffers: boolean, depth: number) => {
    if (depth > MAX_JSON_LD_DEPTH || ++visits > MAX_JSON_LD_VISITS || out.length >= MAX_OFFERS) return;
    if (Array.isArray(value)) {
      for (const v of value) visit(v, name, viaOffers, depth + 1);
      return;
    }
    if (!isObj(value)) return;
    const types = typesOf(value);
    const isOffer = types.includes("offer") || types.includes("aggregateoffer");
    const ownName = textOf(get(value, "name"));
    if (isOffer || (viaOffers && types.length === 0)) {
      const offer = offerFromJsonLd(value, name ?? ownName);
      if (offer) out.push(offer);
      const nested = get(value, "offers");
      if (nested !== undefined) visit(nested, name ?? ownName, true, depth + 1);
      return;
    }
    // A product (or anything else): its offers, variants and nested entities.
    const productName = types.some((t) => t.startsWith("product") || t === "individualproduct") ? ownName : name;
    for (const [key, v] of Object.entries(value)) {
      if (key.startsWith("@") || typeof v !== "object" || v === null) continue;
      visit(v, productName, key.toLowerCase() === "offers", depth + 1);
    }
  };
  for (const e of entities) visit(e, null, false, 0);
  return out;
}

function offersFromMicrodata(items: TMicrodataItem[]): TOffer[] {
  const out: TOffer[] = [];
  items.forEach((item) => {
    if (out.length >= MAX_OFFERS) return;
    const types = item.types.map((t) => (t.split(/[/#:]/).pop() ?? "").toLowerCase());
    const isOffer = types.includes("offer") || types.includes("aggregateoffer") || item.asProp === "offers";
    const prop = (name: string) =>
      item.props[name] ?? Object.entries(item.props).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
    const priceText = prop("price")?.[0];
    const hasPrice = priceText !== undefined || prop("lowPrice") !== undefined;
    if (!isOffer && !hasPrice && prop("availability") === undefined) return;
    if (!isOffer && types.length && !types.some((t) => t.includes("product"))) return;
    const parent = item.parent >= 0 ? items[item.parent] : undefined;
    const name = textOf(isOffer ? (parent?.props.name ?? prop("name")) : prop("name"));
    const price = readPrice(priceText);
    const lowPrice = readPrice(prop("lowPrice")?.[0]);
    const highPrice = readPrice(prop("highPrice")?.[0]);
    const currency = readCurrency(prop("priceCurrency")?.[0]) ?? (priceText ? readCurrency(priceText) : null);
    const availability = normaliseAvailability(prop("availability")?.[0]);
    if (price === null && lowPrice === null && highPrice === null && availability === null) return;
    out.push({ source: "microdata", name, price, lowPrice, highPrice, currency, availability });
  });
  return out;
}

function offerFromOpenGraph(meta: Record<string, string>): TOffer | null {
  const pick = (...keys: string[]) => {
    for (const k of keys) if (meta[k]) return meta[k];
    return undefined;
  };
  const amount = pick("product:sale_price:amount", "product:price:amount", "og:price:amount");
  const currency = pick("product:sale_price:currency", "product:price:currency", "og:price:currency");
  const availability = normaliseAvailability(pick("product:availability", "og:availability"));
  const price = readPrice(amount);
  if (price === null && availability === null) return null;
  return {
    source: "opengraph",
    name: meta["og:title"] ?? null,
    price,
    lowPrice: null,
    highPrice: null,
    currency: readCurrency(currency) ?? (amount ? readCurrency(amount) : null),
    availability,
  };
}

export type TOffersSection = { offers: TOffer[]; availability: TAvailabilityInfo | null };

/** Offers from every structured source (duplicates across sources kept once), then the availability. */
export function readOffers(input: {
  jsonLd: unknown[];
  microdata: TMicrodataItem[];
  metaProperties: Record<string, string>;
  mainText: string;
}): TOffersSection {
  const all = [...offersFromJsonLd(input.jsonLd), ...offersFromMicrodata(input.microdata)];
  const og = offerFromOpenGraph(input.metaProperties);
  if (og) all.push(og);
  const seen = new Set<string>();
  const offers: TOffer[] = [];
  for (const o of all) {
    const key = JSON.stringify([o.price, o.lowPrice, o.highPrice, o.currency, o.availability]);
    if (seen.has(key)) continue;
    seen.add(key);
    offers.push(o);
    if (offers.length >= MAX_OFFERS) break;
  }
  const stated = offers.find((o) => o.availability !== null);
  let availability: TAvailabilityInfo | null = stated
    ? { value: stated.availability as TAvailability, source: stated.source, phrase: null }
    : null;
  if (!availability) {
    // A stock phrase only as a product's stock line, never a sentence of an article (stock-line.ts).
    const phrase = findStockLine(input.mainText, { hasOffer: offers.length > 0 });
    if (phrase) availability = { value: phrase.value, source: "text", phrase: phrase.phrase };
  }
  return { offers, availability };
}

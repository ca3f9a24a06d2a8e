import type { TListingField, TListingKey } from "../../../../contracts/definition/listing-plan";
import { findPrices, readAmount } from "../../../lib/parse-price";
import { isStableName } from "../anchor-element";
import { findAvailabilityPhrase, normaliseAvailability } from "../availability";
import { cleanUrl } from "../clean-url";
import { readCurrency, readPrice } from "../read-offers";
import { collapse } from "./listing-dom";

/**
 * An item's values as strings, one rule per type, so the same page always reads the same and a key never depends
 * on where the item stood (docs/design.md §5). Money is "<amount> <ISO 4217>": the amount and code the fill step's
 * comparison uses for a money field (12 significant digits, upper-case code), read by the shared price reader
 * (server/lib/parse-price.ts) that single-page money fields and detect-prices use. The few patterns here have no
 * nested quantifiers and run on capped text (a value is at most 2,000 characters), so they stay linear.
 */

const MAX_TEXT = 500;
const MAX_KEY = 300;

/** "49.9 USD". */
export function moneyString(amount: number, currency: string): string | null {
  if (!Number.isFinite(amount)) return null;
  const n = Number(amount.toPrecision(12));
  return `${Object.is(n, -0) ? 0 : n} ${currency.toUpperCase()}`;
}

/** The first number in a text: "4.5 ★" → "4.5", "1,299 reviews" → "1299" (no sign). One simple, linear pattern. */
const NUMBER_TOKEN = /\d(?:[\d.,'’]*\d)?/;

function numberFromText(text: string): number | null {
  const m = NUMBER_TOKEN.exec(text);
  if (!m) return null;
  return readAmount(m[0]);
}

/** Money from display text or an attribute: the first current price in it, else a bare amount in the hint's currency. */
export function moneyFromText(text: string, currencyHint: string | null | undefined): string | null {
  const price = findPrices(text, { limit: 1, ...(currencyHint ? { currencyHint } : {}) })[0];
  if (price) return moneyString(price.amount, price.currency);
  if (!currencyHint) return null;
  const m = NUMBER_TOKEN.exec(text);
  const amount = m ? readAmount(m[0], currencyHint) : null;
  return amount === null ? null : moneyString(amount, currencyHint);
}

/** A DOM value (an attribute or visible text) as the field's type. */
export function valueFromText(field: TListingField, raw: string | null | undefined, baseUrl: string): string | null {
  if (raw === null || raw === undefined) return null;
  const text = collapse(raw);
  if (!text) return null;
  switch (field.type) {
    case "money":
      return moneyFromText(text, field.currency);
    case "number": {
      const n = numberFromText(text);
      return n === null ? null : String(Number(n.toPrecision(12)));
    }
    case "url":
      return cleanUrl(text, baseUrl);
    case "availability":
      return normaliseAvailability(text) ?? findAvailabilityPhrase(text)?.value ?? text.slice(0, 100);
    case "text":
      return text.slice(0, MAX_TEXT);
  }
}

/** A JSON-LD value as the field's type; `holder` is the object the value was found in (its priceCurrency). */
export function valueFromJson(field: TListingField, raw: unknown, holder: unknown, baseUrl: string): string | null {
  let v = Array.isArray(raw) ? raw[0] : raw;
  if (v === null || v === undefined) return null;
  if (field.type === "money") {
    const amount = readPrice(v);
    if (amount === null) return null;
    const stated = holder && typeof holder === "object" ? readCurrency(getKey(holder, "priceCurrency")) : null;
    const currency = stated ?? (typeof v === "string" ? readCurrency(v) : null) ?? field.currency ?? null;
    return currency ? moneyString(amount, currency) : null;
  }
  // {"@id": …}, {"name": …}, {"@value": …}: the part that says it.
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    v = field.type === "url" ? (getKey(o, "url") ?? getKey(o, "@id")) : (getKey(o, "name") ?? getKey(o, "@value"));
    if (Array.isArray(v)) v = v[0];
  }
  if (typeof v === "number" && field.type === "number")
    return Number.isFinite(v) ? String(Number(v.toPrecision(12))) : null;
  if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") return null;
  return valueFromText(field, String(v), baseUrl);
}

/** Key lookup ignoring case ("Offers", "URL"), as read-offers.ts reads JSON-LD. */
export function getKey(obj: object, key: string): unknown {
  const o = obj as Record<string, unknown>;
  if (Object.hasOwn(o, key)) return o[key];
  const lower = key.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

/**
 * An id a site chose (kept across deploys), not one a build or a framework generated: a stable name
 * (anchor-element.ts), a number, or a word prefix and a number ("product-12345", "sku_889", "job-2024-117").
 * UUIDs, React ids (":r3:") and hash tails ("card-a8f3k2x") are refused.
 */
export function isChosenId(value: string): boolean {
  if (value.length > 80) return false;
  return isStableName(value) || /^\d{1,20}$/.test(value) || /^[A-Za-z][A-Za-z_-]{0,30}[-_]?\d[\d_-]{0,19}$/.test(value);
}

/** "SKU: 12-345", "Art.-Nr. 4711", "Item # 88": the code without its label. */
const SKU_LABEL =
  /^(?:sku|art(?:ikel)?\.?[\s-]*nr\.?|artikelnummer|item\s*(?:no\.?|#|number)|part\s*(?:no\.?|#|number)|model\s*(?:no\.?|#|number)|ref(?:erence)?\.?|mpn|ean|gtin|upc|code|réf\.?|référence)\s*[:#.]?\s*/iu;

/** An item's key by the key's kind, or null when the item has none usable. */
export function keyFromRaw(key: TListingKey, raw: unknown, baseUrl: string): string | null {
  let v = Array.isArray(raw) ? raw[0] : raw;
  if (v && typeof v === "object") v = getKey(v, key.kind === "url" ? "url" : "name") ?? getKey(v, "@id");
  if (typeof v === "number") v = String(v);
  if (typeof v !== "string") return null;
  const text = collapse(v);
  if (!text) return null;
  switch (key.kind) {
    case "url":
      return cleanUrl(text, baseUrl);
    case "sku": {
      const code = text.replace(SKU_LABEL, "").trim();
      return code && code.length <= 100 ? code : null;
    }
    case "id-attribute":
      return isChosenId(text) ? text : null;
    case "name": {
      // Case and width do not make another item ("Espresso Beans" is "espresso beans").
      const name = text.normalize("NFKC").toLowerCase();
      return name.length <= MAX_KEY ? name : null;
    }
  }
}

/** "Unit price (EUR)" → "unit_price_eur"; "streetAddress" → "street_address". */
export function fieldNameOf(words: string): string | null {
  const name = words
    .replace(/(\p{Ll})(\p{Lu})/gu, "$1_$2")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^[^a-z]+|_+$/g, "")
    .slice(0, 40)
    .replace(/_+$/, "");
  return name || null;
}

import type { TListingField, TListingKey, TListingPlan } from "../../../../contracts/definition/listing-plan";
import { readCurrency } from "../read-offers";
import { chooseKey, MIN_ITEMS, type TCandidate, uniqueFields } from "./detect-common";
import { itemListItems, productItems, resolveJsonPath, type TJsonItem, typesOf } from "./json-ld-items";
import type { TListingPage } from "./listing-page";
import { fieldNameOf } from "./listing-values";

/**
 * Items the page states in JSON-LD for machines (docs/page-reading.md reads the same blocks): an ItemList's elements,
 * or several Product objects. Fields are JSON paths into each item: its name, current price (the first offer's price,
 * else its low price), URL, SKU and availability, and for other kinds of item (a job, a store) a few short values.
 */

const NAME_PATHS = ["/name", "/title", "/headline"];
const PRICE_PATHS = ["/offers/price", "/offers/lowPrice", "/offers/priceSpecification/price"];
const SKU_PATHS = ["/sku", "/productID", "/mpn", "/gtin13", "/gtin"];
/** Values that are not worth a field of their own (long, binary or already read). */
const SKIP_KEYS = new Set([
  "name",
  "title",
  "headline",
  "url",
  "sku",
  "productid",
  "mpn",
  "description",
  "image",
  "logo",
  "photo",
  "thumbnailurl",
  "position",
  "item",
  "offers",
  "pricecurrency",
  "sameas",
]);
/** Nested objects whose short values are read too ("/address/addressLocality", "/jobLocation/address/…"). */
const NESTED = ["/address", "/location/address", "/jobLocation/address"];
const ADDRESS_KEYS = ["streetAddress", "addressLocality", "postalCode", "addressCountry"];

const has = (items: TJsonItem[], path: string) =>
  items.filter((s) => {
    const v = resolveJsonPath(s, path).value;
    return v !== undefined && v !== null && v !== "";
  }).length;

/** The path most items have, when at least half of them have it. */
function bestPath(items: TJsonItem[], paths: string[]): string | null {
  let best: string | null = null;
  let bestCount = 0;
  for (const p of paths) {
    const n = has(items, p);
    if (n > bestCount) [best, bestCount] = [p, n];
  }
  return bestCount * 2 >= items.length ? best : null;
}

/** Short values the first item states beyond the usual ones (a job's employment type, a store's telephone). */
function extraFields(items: TJsonItem[]): TListingField[] {
  const first = items[0];
  if (!first) return [];
  const out: TListingField[] = [];
  for (const [k, v] of Object.entries(first.item)) {
    if (k.startsWith("@") || SKIP_KEYS.has(k.toLowerCase())) continue;
    if ((typeof v === "string" && v.length <= 200) || typeof v === "number") {
      const name = fieldNameOf(k);
      if (name) out.push({ name, type: typeof v === "number" ? "number" : "text", jsonPath: `/${k}` });
    }
  }
  for (const base of NESTED)
    for (const k of ADDRESS_KEYS) {
      const name = fieldNameOf(k);
      if (name && has(items, `${base}/${k}`)) out.push({ name, type: "text", jsonPath: `${base}/${k}` });
    }
  return out.filter((f) => has(items, f.jsonPath as string) * 2 >= items.length);
}

function fieldsOf(items: TJsonItem[]): TListingField[] {
  const fields: TListingField[] = [];
  const name = bestPath(items, NAME_PATHS);
  if (name) fields.push({ name: "name", type: "text", jsonPath: name });
  const price = bestPath(items, PRICE_PATHS);
  if (price) {
    // The sample's currency stands for amounts stated without one.
    let currency: string | null = null;
    for (const s of items)
      currency ??= readCurrency(resolveJsonPath(s, price.replace(/[^/]+$/, "priceCurrency")).value);
    fields.push({ name: "price", type: "money", jsonPath: price, currency });
  }
  const url = bestPath(items, ["/url", "/@id"]);
  if (url) fields.push({ name: "url", type: "url", jsonPath: url });
  const sku = bestPath(items, SKU_PATHS);
  if (sku) fields.push({ name: "sku", type: "text", jsonPath: sku });
  if (has(items, "/offers/availability") * 2 >= items.length)
    fields.push({ name: "availability", type: "availability", jsonPath: "/offers/availability" });
  return uniqueFields([...fields, ...extraFields(items)]);
}

function keyOptions(fields: TListingField[]): TListingKey[] {
  const path = (n: string) => fields.find((f) => f.name === n)?.jsonPath ?? null;
  const out: TListingKey[] = [];
  for (const p of ["/url", "/@id"]) out.push({ kind: "url", jsonPath: p });
  const sku = path("sku");
  if (sku) out.push({ kind: "sku", jsonPath: sku });
  const name = path("name");
  if (name) out.push({ kind: "name", jsonPath: name });
  return out;
}

/** The most common type of the items, as a plural noun: "products", "job postings". */
function nounOf(items: TJsonItem[]): string {
  const counts = new Map<string, number>();
  for (const s of items) for (const t of typesOf(s.item)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!top || top === "listitem" || top === "thing") return "items";
  const words = top === "jobposting" ? "job posting" : top === "localbusiness" ? "store" : top;
  return words.endsWith("s") ? words : `${words}s`;
}

function candidate(page: TListingPage, shape: "jsonld-itemlist" | "jsonld-products", max: number): TCandidate | null {
  const items = shape === "jsonld-itemlist" ? itemListItems(page.jsonLd, max) : productItems(page.jsonLd, max);
  if (items.length < MIN_ITEMS) return null;
  const fields = fieldsOf(items);
  if (!fields.length) return null;
  const base: Omit<TListingPlan, "key"> = { shape, itemSelector: null, fields, nextPage: null, maxPages: 1 };
  const key = chooseKey(page, base, keyOptions(fields), max);
  if (!key) return null;
  const noun = nounOf(items);
  const where = shape === "jsonld-itemlist" ? "the page's JSON-LD ItemList" : "the page's JSON-LD";
  return { plan: { ...base, key }, what: (n) => `${n} ${n === 1 ? noun.replace(/s$/, "") : noun} in ${where}` };
}

export function jsonLdCandidates(page: TListingPage, max: number): TCandidate[] {
  if (!page.jsonLd.length) return [];
  return [candidate(page, "jsonld-itemlist", max), candidate(page, "jsonld-products", max)].filter(
    (c): c is TCandidate => c !== null,
  );
}

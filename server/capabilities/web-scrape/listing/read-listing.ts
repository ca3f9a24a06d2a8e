import type {
  TListingField,
  TListingItem,
  TListingKey,
  TListingPlan,
} from "../../../../contracts/definition/listing-plan";
import { selectElements } from "../css-query";
import { getAttr, type THtmlElement } from "../html-tree";
import { itemListItems, productItems, resolveJsonPath, type TJsonItem } from "./json-ld-items";
import { descendants, visibleText } from "./listing-dom";
import { listingPage, type TListingPage } from "./listing-page";
import { keyFromRaw, valueFromJson, valueFromText } from "./listing-values";
import { readNextPage } from "./next-page";

/**
 * Reading a listing page with a locked plan (docs/design.md §3: the hot loop computes, it does not judge): the items
 * where the plan says they are, each keyed by what the plan says identifies it, each value read by one fixed rule per
 * type. Deterministic and pure: the same HTML and plan always give the same items. The page is parsed once; every
 * selector is one pass over the tree (css-query.ts's engine), and at most `maxItems` items are read.
 */

export const DEFAULT_MAX_ITEMS = 500;
/** Elements of one item a field is looked for in (a card is tens of elements; a runaway "card" is cut). */
const MAX_ITEM_ELEMENTS = 5_000;

export type TListingOptions = { maxItems?: number };

export type TSource = { kind: "element"; el: THtmlElement } | { kind: "json"; json: TJsonItem };
type TSpec = { selector?: string | null; attribute?: string | null; jsonPath?: string | null };
type TRaw = { value: unknown; holder: unknown };

/** The items' sources in page order; an item inside another matched item is part of it. */
export function itemSources(page: TListingPage, plan: TListingPlan, max: number): TSource[] {
  if (plan.shape === "jsonld-itemlist") return itemListItems(page.jsonLd, max).map((json) => ({ kind: "json", json }));
  if (plan.shape === "jsonld-products") return productItems(page.jsonLd, max).map((json) => ({ kind: "json", json }));
  if (!plan.itemSelector) return [];
  const matched = selectElements(page.tree, plan.itemSelector, page.tree.elements.length) ?? [];
  const taken = new Set<THtmlElement>();
  const out: TSource[] = [];
  for (const el of matched) {
    if (out.length >= max) break;
    let nested = false;
    for (let p = el.parent; p && !nested; p = p.parent) nested = taken.has(p);
    if (nested) continue;
    taken.add(el);
    out.push({ kind: "element", el });
  }
  return out;
}

/**
 * One value per item: a JSON path into the item, the item element itself (no selector), or the first element inside
 * the item the selector matches (one pass over the page, each match given to the innermost item around it).
 */
function readColumn(page: TListingPage, sources: TSource[], spec: TSpec, money: boolean): TRaw[] {
  const out: TRaw[] = sources.map(() => ({ value: undefined, holder: null }));
  const readEl = (el: THtmlElement): string | undefined =>
    spec.attribute ? getAttr(el, spec.attribute.toLowerCase()) : visibleText(el, { skipStruck: money });
  if (sources.every((s) => s.kind === "json")) {
    if (!spec.jsonPath) return out;
    sources.forEach((s, i) => {
      if (s.kind === "json") out[i] = resolveJsonPath(s.json, spec.jsonPath as string);
    });
    return out;
  }
  if (!spec.selector) {
    sources.forEach((s, i) => {
      if (s.kind === "element") out[i] = { value: readEl(s.el), holder: null };
    });
    return out;
  }
  const elements = sources.map((s) => (s.kind === "element" ? s.el : null));
  firstMatchesIn(page, elements, spec.selector).forEach((el, i) => {
    if (el) out[i] = { value: readEl(el), holder: null };
  });
  return out;
}

/**
 * The first element inside each item (not the item itself) that `selector` matches, in document order: one pass over
 * the page, each match given to the innermost item around it.
 */
export function firstMatchesIn(
  page: TListingPage,
  items: (THtmlElement | null)[],
  selector: string,
): (THtmlElement | null)[] {
  const out: (THtmlElement | null)[] = items.map(() => null);
  const index = new Map<THtmlElement, number>();
  items.forEach((el, i) => {
    if (el) index.set(el, i);
  });
  // Only the items' own elements are tested (the selector still sees their ancestors): the cost is the items' size.
  const inside: THtmlElement[] = [];
  for (const item of items) if (item) for (const el of descendants(item, MAX_ITEM_ELEMENTS)) inside.push(el);
  const scope = { root: page.tree.root, elements: inside };
  for (const el of selectElements(scope, selector, inside.length) ?? []) {
    let owner: number | undefined;
    for (let p = el.parent; p && owner === undefined; p = p.parent) owner = index.get(p);
    if (owner !== undefined && out[owner] === null) out[owner] = el;
  }
  return out;
}

function readValue(page: TListingPage, field: TListingField, raw: TRaw, json: boolean): string | null {
  if (json) return valueFromJson(field, raw.value, raw.holder, page.baseUrl);
  return valueFromText(field, typeof raw.value === "string" ? raw.value : null, page.baseUrl);
}

/** The keys the plan's key reads on a page, one per source (null where an item has none): detection checks them. */
export function readKeys(page: TListingPage, sources: TSource[], key: TListingKey): (string | null)[] {
  return readColumn(page, sources, key, false).map((raw) => keyFromRaw(key, raw.value, page.baseUrl));
}

/** The items of a parsed page under the plan: keyed, first occurrence of a key kept, in page order. */
export function readListingPage(
  page: TListingPage,
  plan: TListingPlan,
  options: TListingOptions = {},
): { items: TListingItem[]; nextPageUrl: string | null } {
  const max = Math.max(0, options.maxItems ?? DEFAULT_MAX_ITEMS);
  const sources = itemSources(page, plan, max);
  const keys = readKeys(page, sources, plan.key);
  const json = plan.shape === "jsonld-itemlist" || plan.shape === "jsonld-products";
  const columns = plan.fields.map((f) => readColumn(page, sources, f, f.type === "money"));
  const items: TListingItem[] = [];
  const seen = new Set<string>();
  keys.forEach((key, i) => {
    // An item without its key cannot be followed from one refresh to the next; a repeated key is the same item.
    if (key === null || seen.has(key)) return;
    seen.add(key);
    const values: Record<string, string | null> = {};
    plan.fields.forEach((f, j) => {
      values[f.name] = readValue(page, f, columns[j]?.[i] as TRaw, json);
    });
    items.push({ key, values });
  });
  return { items, nextPageUrl: readNextPage(page, plan.nextPage) };
}

/** Reads a listing page with a locked plan; following `nextPageUrl` (up to `plan.maxPages`) is the caller's job. */
export function readListing(
  html: string,
  url: string,
  plan: TListingPlan,
  options: TListingOptions = {},
): { items: TListingItem[]; nextPageUrl: string | null } {
  return readListingPage(listingPage(html, url), plan, options);
}

import type { TListingField, TListingKey, TListingPlan } from "../../../../contracts/definition/listing-plan";
import { selectElements } from "../css-query";
import { getAttr, type THtmlElement } from "../html-tree";
import { readCurrency } from "../read-offers";
import { chooseKey, itemAttributeKeys, MIN_ITEMS, type TCandidate, uniqueFields } from "./detect-common";
import { cssString, insideChrome, visibleText } from "./listing-dom";
import type { TListingPage } from "./listing-page";
import { fieldNameOf } from "./listing-values";

/**
 * Items marked up with microdata (`itemscope itemtype=…/Product`), repeated: the outermost items of one type, at least
 * three, outside the page's navigation. Each field is the item's own `itemprop` (its offer's for prices and
 * availability), read where microdata says a value is (content, href, src, datetime, else the text).
 */

/** Types that are parts of an item or of the page, never the items of a listing. */
const PART_TYPES = new Set([
  "listitem",
  "breadcrumblist",
  "itemlist",
  "offer",
  "aggregateoffer",
  "aggregaterating",
  "rating",
  "review",
  "postaladdress",
  "geocoordinates",
  "openinghoursspecification",
  "imageobject",
  "brand",
  "thing",
  "sitenavigationelement",
  "wpheader",
  "wpfooter",
  "wpsidebar",
  "webpage",
  "website",
]);
/** Nested items whose properties are the item's own values (its price sits in its offer). */
const OWN_SCOPES = new Set(["offers", "address", "joblocation", "location"]);
const SKIP_PROPS = new Set(["image", "description", "pricecurrency", "position", "logo", "photo", "itemcondition"]);

const lastSegment = (itemtype: string) => (itemtype.trim().split(/\s+/)[0] ?? "").split(/[/#:]/).pop() ?? "";

/** The attribute microdata reads a property's value from (HTML Living Standard, "values"); null: the text. */
function valueAttribute(el: THtmlElement): string | null {
  if (getAttr(el, "content") !== undefined) return "content";
  switch (el.name) {
    case "a":
    case "area":
    case "link":
      return "href";
    case "img":
    case "source":
      return "src";
    case "time":
      return getAttr(el, "datetime") !== undefined ? "datetime" : null;
    case "data":
    case "meter":
      return "value";
    default:
      return null;
  }
}

/** The item's own properties (first element per name), through its offers and address, not its brand or reviews. */
function ownProps(item: THtmlElement): { props: Map<string, THtmlElement>; skippedScopes: Set<string> } {
  const props = new Map<string, THtmlElement>();
  const skippedScopes = new Set<string>();
  const stack = [...item.children].reverse();
  let visits = 0;
  while (stack.length && visits++ < 5_000) {
    const n = stack.pop();
    if (!n || typeof n === "string") continue;
    const prop = getAttr(n, "itemprop");
    const scoped = getAttr(n, "itemscope") !== undefined;
    if (prop && !scoped) for (const p of prop.split(/\s+/)) if (p && !props.has(p)) props.set(p, n);
    if (scoped) {
      const names = (prop ?? "").toLowerCase().split(/\s+/);
      if (!names.some((p) => OWN_SCOPES.has(p))) {
        for (const p of (prop ?? "").split(/\s+/)) if (p) skippedScopes.add(p);
        continue;
      }
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as THtmlElement);
  }
  return { props, skippedScopes };
}

function propSelector(prop: string, skipped: Set<string>): string {
  const not = [...skipped].map((s) => `:not([itemprop~=${cssString(s)}] *)`).join("");
  return `[itemprop~=${cssString(prop)}]${not}`;
}

function candidateFor(page: TListingPage, type: string, items: THtmlElement[], max: number): TCandidate | null {
  const typeSel = `[itemtype$=${cssString(`/${type}`)} i]`;
  const itemSelector = `[itemscope]${typeSel}:not(${typeSel} *)`;
  const selected = selectElements(page.tree, itemSelector, page.tree.elements.length) ?? [];
  if (selected.length !== items.length) return null;

  const own = items.map(ownProps);
  const skipped = new Set<string>();
  for (const o of own) for (const s of o.skippedScopes) skipped.add(s);
  const count = (prop: string) => own.filter((o) => o.props.has(prop)).length;
  const first = (prop: string) => own.find((o) => o.props.has(prop))?.props.get(prop) ?? null;
  const field = (name: string, prop: string, type: TListingField["type"]): TListingField | null => {
    const el = first(prop);
    if (!el || count(prop) * 2 < items.length) return null;
    return { name, type, selector: propSelector(prop, skipped), attribute: valueAttribute(el) };
  };
  const pick = (...props: string[]) => props.find((p) => count(p) * 2 >= items.length) ?? null;

  const fields: TListingField[] = [];
  const used = new Set<string>();
  const add = (name: string, prop: string | null, type: TListingField["type"]) => {
    const f = prop ? field(name, prop, type) : null;
    if (!f || !prop) return;
    used.add(prop);
    fields.push(f);
  };
  add("name", pick("name", "title", "headline"), "text");
  const priceProp = pick("price", "lowPrice");
  add("price", priceProp, "money");
  const price = fields.find((f) => f.name === "price");
  if (price) {
    // The currency the sample states beside the price stands for amounts shown without one.
    const cur = first("priceCurrency");
    const amount = first(priceProp as string);
    price.currency =
      (cur ? readCurrency(getAttr(cur, "content") ?? visibleText(cur)) : null) ??
      (amount ? readCurrency(visibleText(amount)) : null);
    used.add("priceCurrency");
  }
  add("url", pick("url"), "url");
  add("sku", pick("sku", "productID", "mpn"), "text");
  add("availability", pick("availability"), "availability");
  // Other short properties the items share (a job's location, a store's street and telephone).
  for (const prop of own[0]?.props.keys() ?? []) {
    if (used.has(prop) || SKIP_PROPS.has(prop.toLowerCase())) continue;
    const name = fieldNameOf(prop);
    if (name) add(name, prop, "text");
  }
  if (!fields.length) return null;

  const byName = (n: string) => fields.find((f) => f.name === n);
  const keys: TListingKey[] = [];
  const url = byName("url");
  if (url) keys.push({ kind: "url", selector: url.selector ?? null, attribute: url.attribute ?? null });
  keys.push({ kind: "url", selector: "a[href]", attribute: "href" });
  const sku = byName("sku");
  if (sku) keys.push({ kind: "sku", selector: sku.selector ?? null, attribute: sku.attribute ?? null });
  if (items[0]) keys.push(...itemAttributeKeys(items[0]).filter((k) => k.kind !== "url"));
  const name = byName("name");
  if (name) keys.push({ kind: "name", selector: name.selector ?? null, attribute: name.attribute ?? null });

  const base: Omit<TListingPlan, "key"> = {
    shape: "microdata",
    itemSelector,
    fields: uniqueFields(fields),
    nextPage: null,
    maxPages: 1,
  };
  const key = chooseKey(page, base, keys, max);
  if (!key) return null;
  return {
    plan: { ...base, key },
    what: (n) => `${n} schema.org ${type} item${n === 1 ? "" : "s"} in the page's microdata`,
  };
}

export function microdataCandidates(page: TListingPage, max: number): TCandidate[] {
  const groups = new Map<string, THtmlElement[]>();
  const written = new Map<string, string>();
  for (const el of page.tree.elements) {
    if (getAttr(el, "itemscope") === undefined) continue;
    const type = lastSegment(getAttr(el, "itemtype") ?? "");
    const lower = type.toLowerCase();
    if (!/^[A-Za-z]{2,60}$/.test(type) || PART_TYPES.has(lower)) continue;
    // Outermost of its type only: a product's related product is part of it.
    let nested = false;
    for (let p = el.parent; p && !nested; p = p.parent)
      nested =
        getAttr(p, "itemscope") !== undefined && lastSegment(getAttr(p, "itemtype") ?? "").toLowerCase() === lower;
    if (nested || insideChrome(el)) continue;
    if (!written.has(lower)) written.set(lower, type);
    groups.set(lower, [...(groups.get(lower) ?? []), el]);
  }
  const out: TCandidate[] = [];
  for (const [lower, items] of groups) {
    if (items.length < MIN_ITEMS) continue;
    const c = candidateFor(page, written.get(lower) as string, items.slice(0, max), max);
    if (c) out.push(c);
  }
  return out;
}

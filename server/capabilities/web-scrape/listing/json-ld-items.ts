import { getAttr, type THtmlTree, textOf } from "../html-tree";
import { parseLenientJson } from "../parse-lenient-json";
import { getKey } from "./listing-values";

/**
 * The items a page's JSON-LD lists: the elements of its ItemLists, or its Product objects (docs/page-reading.md reads
 * the same blocks leniently). Walks are bounded in depth and visits, so a huge or hostile block costs little.
 */

/** One item: its object, and the ListItem around it (whose `url` often says where the item lives). */
export type TJsonItem = { item: Record<string, unknown>; wrapper: Record<string, unknown> | null };

const MAX_SCRIPTS = 20;
const MAX_SCRIPT_CHARS = 2_000_000;
const MAX_DEPTH = 12;
const MAX_VISITS = 50_000;

type TObj = Record<string, unknown>;
const isObj = (v: unknown): v is TObj => typeof v === "object" && v !== null && !Array.isArray(v);
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/** "Product", "schema:Product", "https://schema.org/Product" → "product". */
export function typesOf(obj: TObj): string[] {
  return asList(getKey(obj, "@type"))
    .filter((t): t is string => typeof t === "string")
    .map((t) => (t.split(/[/#:]/).pop() ?? "").toLowerCase());
}

/** Every parsed `application/ld+json` block of the page (a block that is not JSON even leniently is skipped). */
export function readJsonLdBlocks(tree: THtmlTree): unknown[] {
  const out: unknown[] = [];
  for (const el of tree.elements) {
    if (el.name !== "script" || !(getAttr(el, "type") ?? "").toLowerCase().includes("ld+json")) continue;
    const parsed = parseLenientJson(textOf(el, MAX_SCRIPT_CHARS));
    if (parsed !== undefined) out.push(parsed);
    if (out.length >= MAX_SCRIPTS) break;
  }
  return out;
}

/** Visits objects depth-first; `visit` returns true to stop descending into that object. */
function walk(blocks: unknown[], visit: (obj: TObj) => boolean): void {
  let visits = 0;
  const stack: { v: unknown; depth: number }[] = blocks.map((v) => ({ v, depth: 0 })).reverse();
  while (stack.length && visits++ < MAX_VISITS) {
    const { v, depth } = stack.pop() as { v: unknown; depth: number };
    if (depth > MAX_DEPTH) continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: depth + 1 });
      continue;
    }
    if (!isObj(v) || visit(v)) continue;
    const entries = Object.entries(v).filter(([k]) => !k.startsWith("@") || k.toLowerCase() === "@graph");
    for (let i = entries.length - 1; i >= 0; i--) {
      const c = (entries[i] as [string, unknown])[1];
      if (typeof c === "object" && c !== null) stack.push({ v: c, depth: depth + 1 });
    }
  }
}

/** The elements of every ItemList (a BreadcrumbList is another type), in the page's order. */
export function itemListItems(blocks: unknown[], max: number): TJsonItem[] {
  const out: TJsonItem[] = [];
  walk(blocks, (obj) => {
    if (!typesOf(obj).includes("itemlist")) return false;
    for (const el of asList(getKey(obj, "itemListElement"))) {
      if (out.length >= max) break;
      if (typeof el === "string") out.push({ item: { url: el }, wrapper: null });
      else if (isObj(el)) {
        const item = getKey(el, "item");
        if (isObj(item)) out.push({ item, wrapper: el });
        else if (typeof item === "string") out.push({ item: { url: item }, wrapper: el });
        else out.push({ item: el, wrapper: null });
      }
    }
    return true;
  });
  return out;
}

const PRODUCT_TYPES = new Set(["product", "individualproduct", "productmodel", "productgroup"]);

/** Every Product object; a product's variants, offers and related products are part of it, not more products. */
export function productItems(blocks: unknown[], max: number): TJsonItem[] {
  const out: TJsonItem[] = [];
  walk(blocks, (obj) => {
    if (!typesOf(obj).some((t) => PRODUCT_TYPES.has(t))) return false;
    if (out.length < max) out.push({ item: obj, wrapper: null });
    return true;
  });
  return out;
}

/**
 * A pointer into an item ("/offers/price"): keys in any case, an array stands for its first element (an item's first
 * offer); `~1` and `~0` escape "/" and "~". Returns the value and the object it sits in (whose priceCurrency a money
 * value takes); the ListItem around the item answers what the item itself does not.
 */
export function resolveJsonPath(source: TJsonItem, path: string): { value: unknown; holder: unknown } {
  const segments = path
    .split("/")
    .slice(1)
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  for (const root of [source.item, source.wrapper]) {
    if (!root) continue;
    let at: unknown = root;
    let holder: unknown = null;
    for (const seg of segments) {
      if (Array.isArray(at)) {
        if (/^\d+$/.test(seg)) {
          at = at[Number(seg)];
          continue;
        }
        at = at[0];
      }
      if (!isObj(at)) {
        at = undefined;
        break;
      }
      holder = at;
      at = getKey(at, seg);
    }
    if (at !== undefined && at !== null) return { value: at, holder };
  }
  return { value: undefined, holder: null };
}

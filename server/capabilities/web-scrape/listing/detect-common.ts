import type { TListingField, TListingKey, TListingPlan } from "../../../../contracts/definition/listing-plan";
import { getAttr, type THtmlElement } from "../html-tree";
import type { TListingPage } from "./listing-page";
import { itemSources, readKeys, type TSource } from "./read-listing";

/**
 * What every shape's detector shares: a candidate (a plan and how to say what it found), and the choice of the key —
 * the first of the item's URL, SKU, an id the site chose and its name that every item has and no two items share on
 * the sample (docs/design.md §3: identity is a rule, never a position).
 */

/** Repeated items are a listing from this many on. */
export const MIN_ITEMS = 3;
/** A key or a field holds when this share of the sample's items has it. */
const KEY_COVERAGE = 0.9;
/** Fields a plan proposes at most. */
export const MAX_FIELDS = 8;

export type TCandidate = {
  plan: TListingPlan;
  /** What the items are, for the reply: "products in the page's JSON-LD ItemList". */
  what: (count: number) => string;
};

/** The first key option every item (all but a tenth) has, and no two items share; null when none holds. */
export function chooseKey(
  page: TListingPage,
  plan: Omit<TListingPlan, "key">,
  options: TListingKey[],
  max: number,
): TListingKey | null {
  const sources: TSource[] = itemSources(page, { ...plan, key: { kind: "name" } }, max);
  if (sources.length < MIN_ITEMS) return null;
  for (const key of options) {
    const keys = readKeys(page, sources, key).filter((k): k is string => k !== null);
    if (keys.length < MIN_ITEMS || keys.length < sources.length * KEY_COVERAGE) continue;
    if (new Set(keys).size === keys.length) return key;
  }
  return null;
}

/** What a key is, in the reply's words. */
export function keyWords(key: TListingKey): string {
  switch (key.kind) {
    case "url":
      return "its URL";
    case "sku":
      return "its SKU";
    case "id-attribute":
      return `its “${key.attribute ?? "id"}” attribute`;
    case "name":
      return "its name";
  }
}

/** Field names unique within a plan: the second "price" becomes "price_2". */
export function uniqueFields(fields: TListingField[]): TListingField[] {
  const taken = new Set<string>();
  const out: TListingField[] = [];
  for (const f of fields) {
    let name = f.name;
    for (let n = 2; taken.has(name); n++) name = `${f.name.slice(0, 36)}_${n}`;
    taken.add(name);
    out.push({ ...f, name });
    if (out.length >= MAX_FIELDS) break;
  }
  return out;
}

const ID_ATTRIBUTES = new Set(["data-pid", "data-itemid", "data-productid", "data-item", "data-product"]);

/** Attributes of an item element that can identify it: its SKU, else an id the site set. */
export function itemAttributeKeys(el: THtmlElement): TListingKey[] {
  const out: TListingKey[] = [];
  const names: string[] = [];
  for (let i = 0; i < el.attrs.length; i += 2) names.push(el.attrs[i] as string);
  for (const name of names)
    if (name.startsWith("data-") && name.includes("sku")) out.push({ kind: "sku", attribute: name });
  for (const name of names) {
    if (name === "id" || (name.startsWith("data-") && (name.endsWith("-id") || ID_ATTRIBUTES.has(name))))
      out.push({ kind: "id-attribute", attribute: name });
  }
  if (getAttr(el, "itemid") !== undefined) out.push({ kind: "url", attribute: "itemid" });
  return out;
}

import type { TListingItem, TListingPlan, TListingShape } from "../../../../contracts/definition/listing-plan";
import { getAttr, type THtmlElement } from "../html-tree";
import { cardCandidates } from "./detect-cards";
import { keyWords, MIN_ITEMS, type TCandidate } from "./detect-common";
import { jsonLdCandidates } from "./detect-json-ld";
import { microdataCandidates } from "./detect-microdata";
import { tableCandidates } from "./detect-table";
import { itemListItems, productItems } from "./json-ld-items";
import { listingPage, type TListingPage } from "./listing-page";
import { detectNextPage } from "./next-page";
import { DEFAULT_MAX_ITEMS, readListingPage, type TListingOptions } from "./read-listing";

/**
 * Setup's look at a sample page (docs/design.md §3: judged once, then computed): is it a listing, where are its items,
 * what identifies each, which values to read. Every shape proposes a plan; each plan is read on the sample exactly as
 * a refresh will read it (read-listing.ts), and the best is kept by one rule (below). Pure; the page is parsed once.
 */

/** Pages a paged listing's plan reads by default. */
export const DEFAULT_MAX_PAGES = 10;

/** The more explicit source first: a site states structured data for machines and changes it less than its markup. */
const SHAPE_ORDER: TListingShape[] = ["jsonld-itemlist", "jsonld-products", "microdata", "table", "dom-cards"];
/** Candidates reading at least this share of the best one's values count as equally good. */
const NEAR_BEST = 0.8;

export type TDetectedListing = { plan: TListingPlan; items: TListingItem[]; why: string };

type TScored = { candidate: TCandidate; plan: TListingPlan; items: TListingItem[]; score: number };

/**
 * A page that is one product (its structured data describes exactly one, or it says og:type product): its repeated
 * cards are cross-sells and its tables a variant chart, not a listing.
 */
function isOneProductPage(page: TListingPage): boolean {
  if (itemListItems(page.jsonLd, 1).length) return false;
  if (productItems(page.jsonLd, 2).length === 1) return true;
  let microdataProducts = 0;
  let ogProduct = false;
  for (const el of page.tree.elements) {
    if (el.name === "meta" && getAttr(el, "property")?.toLowerCase() === "og:type")
      ogProduct ||= /^product\b/i.test(getAttr(el, "content") ?? "");
    if (getAttr(el, "itemscope") === undefined || !isProductType(el)) continue;
    let nested = false;
    for (let p = el.parent; p && !nested; p = p.parent)
      nested = getAttr(p, "itemscope") !== undefined && isProductType(p);
    if (!nested) microdataProducts++;
  }
  return microdataProducts === 1 || (microdataProducts === 0 && ogProduct);
}

const isProductType = (el: THtmlElement) => /[/#:]product$/i.test((getAttr(el, "itemtype") ?? "").trim());

/** Reads the sample with the candidate's plan; fields most items lack are dropped; scored by the values read. */
function score(page: TListingPage, candidate: TCandidate, nextPage: TListingPlan["nextPage"], max: number): TScored {
  const draft: TListingPlan = { ...candidate.plan, nextPage, maxPages: nextPage ? DEFAULT_MAX_PAGES : 1 };
  const all = readListingPage(page, draft, { maxItems: max }).items;
  const kept = draft.fields.filter((f) => all.filter((i) => i.values[f.name] !== null).length * 2 >= all.length);
  const fields = kept.length ? kept : draft.fields;
  const plan = { ...draft, fields };
  // Fields are read independently, so dropping one is dropping its values (what reading with `plan` gives).
  const items = all.map((i) => ({
    key: i.key,
    values: Object.fromEntries(fields.map((f) => [f.name, i.values[f.name] ?? null])),
  }));
  let values = 0;
  for (const item of items) for (const v of Object.values(item.values)) if (v !== null) values++;
  return { candidate, plan, items, score: items.length + values };
}

/**
 * The most values read wins (items plus every value they have: a dozen priced, named, linked products beat the same
 * dozen as bare URLs); among candidates within NEAR_BEST of it, the more explicit source (SHAPE_ORDER).
 */
function pick(scored: TScored[]): TScored | null {
  const ok = scored.filter((s) => s.items.length >= MIN_ITEMS);
  const top = Math.max(0, ...ok.map((s) => s.score));
  const near = ok.filter((s) => s.score >= top * NEAR_BEST);
  near.sort((a, b) => SHAPE_ORDER.indexOf(a.plan.shape) - SHAPE_ORDER.indexOf(b.plan.shape) || b.score - a.score);
  return near[0] ?? null;
}

export function detectListingInPage(page: TListingPage, options: TListingOptions = {}): TDetectedListing | null {
  const max = Math.max(MIN_ITEMS, options.maxItems ?? DEFAULT_MAX_ITEMS);
  const candidates = [...jsonLdCandidates(page, max), ...microdataCandidates(page, max)];
  if (!isOneProductPage(page)) candidates.push(...tableCandidates(page, max), ...cardCandidates(page, max));
  if (!candidates.length) return null;
  const nextPage = detectNextPage(page);
  const best = pick(candidates.map((c) => score(page, c, nextPage, max)));
  if (!best) return null;
  const n = best.items.length;
  const more = best.plan.nextPage ? "; further pages follow its “next” link" : "";
  return {
    plan: best.plan,
    items: best.items,
    why: `${best.candidate.what(n)}, each identified by ${keyWords(best.plan.key)}${more}.`,
  };
}

/** Is this page a listing, and how is it read? Null for a single product, an article, or no repeated items. */
export function detectListing(html: string, url: string, options: TListingOptions = {}): TDetectedListing | null {
  return detectListingInPage(listingPage(html, url), options);
}

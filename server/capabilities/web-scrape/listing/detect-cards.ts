import type { TListingField, TListingKey, TListingPlan } from "../../../../contracts/definition/listing-plan";
import { findPrices } from "../../../lib/parse-price";
import { selectElements } from "../css-query";
import { getAttr, isElement, type THtmlElement } from "../html-tree";
import { namesWord, nameTokens } from "../name-tokens";
import { chooseKey, itemAttributeKeys, MAX_FIELDS, MIN_ITEMS, type TCandidate, uniqueFields } from "./detect-common";
import {
  childElements,
  descendants,
  insideChrome,
  signature,
  stableClasses,
  stableId,
  textParts,
  underRecommendationHeading,
  visibleText,
} from "./listing-dom";
import type { TListingPage } from "./listing-page";
import { fieldNameOf, moneyFromText } from "./listing-values";
import { firstMatchesIn } from "./read-listing";

/**
 * Repeated cards without structured data: sibling elements sharing a tag and class signature (`li.product-card`),
 * at least three, outside the page's navigation and not under a "You may also like" heading. A group is a listing when
 * its cards name something (a heading, a name/title element, else a link's text) and either show a price
 * (detect-prices' reader) or, without prices (a store locator, a job board), have a heading or named title and at
 * least one other named value (an address, a location). Fields are CSS selectors inside the card, each checked on the
 * sample to read most cards.
 */

const CARD_TAGS = new Set(["li", "div", "article", "section", "a", "figure", "dd"]);
const HEADING = /^h[1-6]$/;
/** A field holds when it reads this share of the sample's cards. */
const FIELD_COVERAGE = 0.8;
const DETAIL_COVERAGE = 0.5;
/** Groups looked at closely (largest first), and cards per group sampled for selectors. */
const MAX_GROUPS = 16;
const SAMPLE_CARDS = 12;
const CHECK_CARDS = 60;
/** Names of old and list prices: struck-through amounts are not what an item costs now (docs/intelligence.md). */
const OLD_PRICE_WORDS = [
  "old",
  "was",
  "regular",
  "compare",
  "strike",
  "original",
  "before",
  "list",
  "uvp",
  "rrp",
  "msrp",
];
/** Class words that say nothing about a value, or name values not worth a field. */
const GENERIC_WORDS = new Set([
  "text",
  "value",
  "info",
  "label",
  "field",
  "item",
  "card",
  "tile",
  "wrap",
  "wrapper",
  "body",
  "content",
  "inner",
  "main",
  "details",
  "meta",
  "container",
  "box",
]);
const SKIP_DETAIL_WORDS = new Set([
  "description",
  "desc",
  "summary",
  "excerpt",
  "teaser",
  "image",
  "img",
  "thumb",
  "thumbnail",
  "photo",
  "icon",
  "btn",
  "button",
  "cta",
  "action",
  "actions",
  "link",
  "name",
  "title",
  "price",
  "media",
]);
const AVAILABILITY_WORDS = ["stock", "availability", "inventory", "lager", "disponibilite"];

/** `h3.product-name`: the tag and up to two stable classes, in the page's order. */
function descriptor(el: THtmlElement): string {
  return `${el.name}${stableClasses(el)
    .slice(0, 2)
    .map((c) => `.${c}`)
    .join("")}`;
}

const classNames = (el: THtmlElement) => [getAttr(el, "class") ?? ""].filter(Boolean);
const namedAs = (el: THtmlElement, words: string[]) => classNames(el).some((c) => words.some((w) => namesWord(c, w)));
const hasLetters = (s: string) => /\p{L}/u.test(s);

function isOldPrice(el: THtmlElement, card: THtmlElement): boolean {
  for (let p: THtmlElement | null = el; p && p !== card; p = p.parent)
    if (p.name === "del" || p.name === "s" || p.name === "strike" || namedAs(p, OLD_PRICE_WORDS)) return true;
  return false;
}

/** Sibling groups sharing a signature, merged across parents of one signature, largest first. */
function repeatedGroups(page: TListingPage): THtmlElement[][] {
  const merged = new Map<string, THtmlElement[]>();
  for (const parent of page.tree.elements) {
    if (parent.children.length < 2) continue;
    const bySig = new Map<string, THtmlElement[]>();
    for (const c of parent.children) {
      if (!isElement(c) || !CARD_TAGS.has(c.name)) continue;
      const sig = signature(c);
      const list = bySig.get(sig);
      if (list) list.push(c);
      else bySig.set(sig, [c]);
    }
    for (const [sig, members] of bySig) {
      if (members.length < 2) continue;
      const key = `${signature(parent)} > ${sig}`;
      const list = merged.get(key);
      if (list) list.push(...members);
      else merged.set(key, [...members]);
    }
  }
  // Judged once per parent, at its first card: page chrome, or a block under a "You may also like" heading.
  const usable = new Map<THtmlElement, boolean>();
  const usableParent = (m: THtmlElement) => {
    const p = m.parent as THtmlElement;
    let ok = usable.get(p);
    if (ok === undefined) {
      ok = !insideChrome(p) && !underRecommendationHeading(m);
      usable.set(p, ok);
    }
    return ok;
  };
  return [...merged.values()]
    .filter((g) => g.length >= MIN_ITEMS)
    .map((g) => g.filter((m) => m.parent && usableParent(m)))
    .filter((g) => g.length >= MIN_ITEMS)
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_GROUPS);
}

/** A plain wrapper around each card (`div.col > article.card`): the card inside is the item. */
function descend(members: THtmlElement[]): THtmlElement[] {
  let at = members;
  for (let i = 0; i < 3; i++) {
    const kids = at.map((m) => {
      const els = childElements(m);
      return els.length === 1 && visibleText(m) === visibleText(els[0] as THtmlElement) ? els[0] : undefined;
    });
    const first = kids[0];
    if (!first || kids.some((k) => !k || signature(k) !== signature(first))) break;
    if (!CARD_TAGS.has(first.name) || !stableClasses(first).length || first.name === "a") break;
    at = kids as THtmlElement[];
  }
  return at;
}

/** The selector that matches exactly these cards on the sample: the signature, under its parent, under an id. */
function itemSelectorOf(page: TListingPage, cards: THtmlElement[]): string | null {
  const first = cards[0] as THtmlElement;
  const sig = signature(first);
  const parentSig = first.parent ? signature(first.parent) : null;
  const tries = [sig, ...(parentSig ? [`${parentSig} > ${sig}`] : [])];
  for (let p = first.parent, up = 0; p && up < 8; p = p.parent, up++) {
    const id = stableId(p);
    if (id) {
      tries.push(`#${id} ${sig}`);
      if (parentSig) tries.push(`#${id} ${parentSig} > ${sig}`);
      break;
    }
  }
  const want = new Set(cards);
  for (const selector of tries) {
    const got = selectElements(page.tree, selector, cards.length + 1);
    if (got && got.length === cards.length && got.every((e) => want.has(e))) return selector;
  }
  return null;
}

type TPick = { selector: string; covered: number };

/** The candidate selector that reads the most cards (a value `read` accepts); earlier candidates win ties. */
function bestSelector(
  page: TListingPage,
  cards: THtmlElement[],
  candidates: string[],
  read: (el: THtmlElement) => string | null,
): TPick | null {
  let best: TPick | null = null;
  for (const selector of new Set(candidates)) {
    const covered = firstMatchesIn(page, cards, selector).filter((el) => el && read(el) !== null).length;
    if (!best || covered > best.covered) best = { selector, covered };
  }
  return best;
}

type TName = { el: THtmlElement; from: "heading" | "class" | "link" };

function nameOf(card: THtmlElement): TName | null {
  const all = descendants(card, 500);
  const named = (e: THtmlElement) => {
    const t = visibleText(e, { maxChars: 300 });
    return t.length > 0 && t.length <= 200 && hasLetters(t);
  };
  const heading = all.find((e) => HEADING.test(e.name) && named(e));
  if (heading) return { el: heading, from: "heading" };
  const titled = all.find((e) => namedAs(e, ["name", "title"]) && named(e));
  if (titled) return { el: titled, from: "class" };
  let link: THtmlElement | null = null;
  for (const e of all)
    if (e.name === "a" && named(e) && (!link || visibleText(e).length > visibleText(link).length)) link = e;
  return link ? { el: link, from: "link" } : null;
}

/** A value's own element: no heading or link inside (that is the card's body), a few text pieces at most. */
function isLeafValue(el: THtmlElement): boolean {
  return textParts(el, 4).length <= 3 && !descendants(el, 50).some((d) => d.name === "a" || HEADING.test(d.name));
}

/** A field's name from a class: "store-address" → "address", "job-location" → "location" (the card's own words out). */
function detailName(el: THtmlElement, cardWords: Set<string>): string | null {
  for (const cls of stableClasses(el)) {
    const words = nameTokens(cls).filter((w) => !cardWords.has(w) && !GENERIC_WORDS.has(w));
    if (!words.length || words.some((w) => SKIP_DETAIL_WORDS.has(w))) continue;
    return fieldNameOf(words.join("_"));
  }
  return null;
}

function candidateFor(page: TListingPage, cards: THtmlElement[], max: number): TCandidate | null {
  const itemSelector = itemSelectorOf(page, cards);
  if (!itemSelector) return null;
  const sample = cards.slice(0, SAMPLE_CARDS);
  // Selectors are proposed from a dozen cards and checked on up to CHECK_CARDS (a long grid costs no more).
  const checked = cards.slice(0, CHECK_CARDS);
  const need = (covered: number, share: number) => covered >= Math.max(MIN_ITEMS, Math.ceil(checked.length * share));

  // Name: what the cards are called.
  const names = sample.map(nameOf);
  const firstName = names.find((n) => n !== null);
  if (!firstName) return null;
  const nameRead = (el: THtmlElement) => {
    const t = visibleText(el, { maxChars: 300 });
    return t && hasLetters(t) ? t : null;
  };
  const namePick = bestSelector(
    page,
    checked,
    names.flatMap((n) => (n && n.from === firstName.from ? [descriptor(n.el)] : [])),
    nameRead,
  );
  if (!namePick || !need(namePick.covered, FIELD_COVERAGE)) return null;
  const fields: TListingField[] = [{ name: "name", type: "text", selector: namePick.selector }];

  // Price: the element showing the card's current price (struck-through and "was" prices left out).
  const cardPrice = (card: THtmlElement) => findPrices(visibleText(card, { skipStruck: true }), { limit: 1 })[0];
  const currency = sample.map(cardPrice).find((p) => p)?.currency ?? null;
  const priceEls: string[] = [];
  for (const card of sample) {
    for (const e of descendants(card, 500)) {
      if (isOldPrice(e, card)) continue;
      const t = visibleText(e, { skipStruck: true, maxChars: 120 });
      if (t.length <= 80 && findPrices(t, { limit: 1 }).length) priceEls.push(descriptor(e));
    }
  }
  const moneyRead = (el: THtmlElement) => moneyFromText(visibleText(el, { skipStruck: true }), currency);
  // Deepest first: a price's own element names it better than the card's body.
  const pricePick = bestSelector(page, checked, priceEls.reverse(), moneyRead);
  const priced = !!pricePick && need(pricePick.covered, FIELD_COVERAGE);
  if (pricePick && priced) fields.push({ name: "price", type: "money", selector: pricePick.selector, currency });

  // URL: the card's own link, else the link around or inside its name, else its first link.
  const cardIsLink = cards.every((c) => c.name === "a" && getAttr(c, "href"));
  const linkTries: string[] = [];
  for (const card of sample) {
    const n = nameOf(card);
    const around = n ? (n.el.name === "a" ? n.el : null) : null;
    const inside = n ? descendants(n.el, 50).find((e) => e.name === "a") : undefined;
    const anyLink = descendants(card, 500).find((e) => e.name === "a" && getAttr(e, "href"));
    for (const l of [around, inside, anyLink]) if (l && getAttr(l, "href")) linkTries.push(`${descriptor(l)}[href]`);
    if (n && inside) linkTries.push(`${descriptor(n.el)} a[href]`);
  }
  linkTries.push("a[href]");
  const hrefRead = (el: THtmlElement) => {
    const h = getAttr(el, "href")?.trim();
    return h && !h.startsWith("#") && !/^javascript:/i.test(h) ? h : null;
  };
  const linkPick = cardIsLink ? null : bestSelector(page, checked, linkTries, hrefRead);
  if (cardIsLink) fields.push({ name: "url", type: "url", selector: null, attribute: "href" });
  else if (linkPick && need(linkPick.covered, FIELD_COVERAGE))
    fields.push({ name: "url", type: "url", selector: linkPick.selector, attribute: "href" });

  // Other named values the cards share: an address, a location, a rating, the stock line, the SKU.
  const cardWords = new Set(stableClasses(cards[0] as THtmlElement).flatMap(nameTokens));
  const taken = new Set(fields.map((f) => f.selector ?? ""));
  const details = new Map<string, TListingField>();
  for (const card of sample) {
    for (const e of descendants(card, 500)) {
      const sel = descriptor(e);
      if (sel === e.name || taken.has(sel) || details.has(sel) || HEADING.test(e.name) || e.name === "a") continue;
      const t = visibleText(e, { maxChars: 300 });
      if (!t || t.length > 200 || !isLeafValue(e)) continue;
      const stock = namedAs(e, AVAILABILITY_WORDS);
      const sku = namedAs(e, ["sku"]);
      if (!stock && findPrices(t, { limit: 1 }).length) continue;
      const name = stock ? "availability" : sku ? "sku" : detailName(e, cardWords);
      if (!name) continue;
      const type: TListingField["type"] = stock
        ? "availability"
        : !sku && !hasLetters(t) && /\d/.test(t)
          ? "number"
          : "text";
      details.set(sel, { name, type, selector: sel });
    }
  }
  for (const d of details.values()) {
    if (fields.length >= MAX_FIELDS) break;
    const values = firstMatchesIn(page, checked, d.selector as string).map((el) => (el ? nameRead(el) || null : null));
    const present = values.filter((v): v is string => v !== null);
    // A value every card shows alike ("Add to wishlist") says nothing about the item.
    if (!need(present.length, DETAIL_COVERAGE) || (d.type !== "availability" && new Set(present).size < 2)) continue;
    fields.push(d);
  }

  if (!priced) {
    // Without prices, a repeated block is a listing only when each names something and says more about it.
    const detailed = fields.some((f) => f.name !== "name" && f.name !== "url");
    const classed = itemSelector.includes(".") || itemSelector.includes("#");
    if (firstName.from === "link" || !detailed || !classed) return null;
  }

  const keys: TListingKey[] = [];
  const url = fields.find((f) => f.name === "url");
  if (url) keys.push({ kind: "url", selector: url.selector ?? null, attribute: "href" });
  keys.push(...itemAttributeKeys(cards[0] as THtmlElement));
  const skuField = fields.find((f) => f.name === "sku");
  if (skuField) keys.push({ kind: "sku", selector: skuField.selector ?? null });
  keys.push({ kind: "name", selector: namePick.selector });

  const base: Omit<TListingPlan, "key"> = {
    shape: "dom-cards",
    itemSelector,
    fields: uniqueFields(fields),
    nextPage: null,
    maxPages: 1,
  };
  const key = chooseKey(page, base, keys, max);
  if (!key) return null;
  const priceWords = priced ? " with prices" : "";
  return {
    plan: { ...base, key },
    what: (n) => `${n} repeated card${n === 1 ? "" : "s"} (${itemSelector})${priceWords}`,
  };
}

export function cardCandidates(page: TListingPage, max: number): TCandidate[] {
  const out: TCandidate[] = [];
  const seen = new Set<THtmlElement>();
  for (const group of repeatedGroups(page)) {
    const cards = descend(group);
    if (seen.has(cards[0] as THtmlElement)) continue;
    seen.add(cards[0] as THtmlElement);
    const c = candidateFor(page, cards, max);
    if (c) out.push(c);
  }
  return out;
}

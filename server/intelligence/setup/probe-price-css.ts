import type { TCssAnswer, TCssQuery } from "../../capabilities";
import { cssQueryKey } from "../../capabilities";
import { findPrices } from "../../lib/parse-price";
import { ANCHOR_RANK, readsAs, type TAnchor } from "./price-anchors";

/**
 * What the page's HTML says about its prices, asked as CSS queries (answered in the page worker —
 * never parsed on this thread, docs/design.md §5): which elements are marked as prices, which are struck
 * through or marked as old, and which selector reads the product's own price and nothing else.
 */

/** Answers CSS queries against the sample page (setup passes answerCssInWorker bound to the HTML). */
export type TCssOracle = (queries: TCssQuery[]) => Promise<Record<string, TCssAnswer>>;

/**
 * Elements whose class or id names "price" (in a few languages) as a word — `preco_final`, `finalPrice`, `price2` —
 * not as letters inside another (`precontent`, `scena`): the page worker's `:name-token` (docs/page-reading.md). A
 * worker-only pseudo-class: probes ask it, saved field selectors never carry it.
 */
export const PRICE_ELEMENTS = ":name-token(price, preis, prix, precio, prezzo, prijs, preco, cena, pret, hinta)";

/** Struck-through elements and elements whose class marks an old price. */
const OLD_ELEMENTS = [
  "del",
  "s",
  "strike",
  ...["old", "was", "regular", "compare", "strike", "crossed", "before", "original", "list", "rrp", "uvp", "msrp"].map(
    (w) =>
      `[class*="${w}-price" i], [class*="${w}price" i], [class*="price-${w}" i], [class*="price--${w}" i], [class*="price_${w}" i]`,
  ),
  '[class*="line-through" i]',
].join(", ");

const STRUCK = "del *, s *, strike *";
/** A class that marks an old or crossed-out price ("price--old", "was-price", "strike"). */
export const OLD_CLASS =
  /(^|[-_\s])(old|was|regular|compare|strike|strikethrough|crossed|before|original|rrp|uvp|msrp|list)([-_\s]|$)|(old|was|regular|list|compare|strike)-?price|price-?(old|was|before|regular|list|strike)/i;
export const IDENT = /^-?[A-Za-z_][\w-]{0,60}$/;

const MAX_CANDIDATES = 10;
const MAX_SCOPED = 16;

export type TPriceElement = { text: string; classes: string | null; id: string | null };

export type TPriceCssFacts = {
  /** Elements marked as prices, in document order. */
  priceElements: TPriceElement[];
  /** Texts of struck-through and old-price elements. */
  oldTexts: string[];
  /** The page's first h1, the usual product name. */
  h1: string | null;
};

const q = (selector: string, attribute?: string): TCssQuery => ({
  selector,
  all: true,
  ...(attribute ? { attribute } : {}),
});

function values(answers: Record<string, TCssAnswer>, query: TCssQuery): (string | null)[] {
  const a = answers[cssQueryKey(query)];
  return a?.ok ? a.values : [];
}

const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/** Round one: price-marked elements, old-price texts and the h1. */
export async function readPriceCssFacts(ask: TCssOracle): Promise<TPriceCssFacts> {
  const texts = q(PRICE_ELEMENTS);
  const classes = q(PRICE_ELEMENTS, "class");
  const ids = q(PRICE_ELEMENTS, "id");
  const old = q(OLD_ELEMENTS);
  const h1 = { selector: "h1", all: false };
  const answers = await ask([texts, classes, ids, old, h1]);
  const t = values(answers, texts);
  const c = values(answers, classes);
  const i = values(answers, ids);
  return {
    priceElements: t.map((text, n) => ({ text: collapse(text ?? ""), classes: c[n] ?? null, id: i[n] ?? null })),
    oldTexts: values(answers, old)
      .map((v) => collapse(v ?? ""))
      .filter(Boolean),
    h1: collapse(values(answers, h1)[0] ?? "") || null,
  };
}

const isOldElement = (e: TPriceElement) => OLD_CLASS.test(e.classes ?? "") || OLD_CLASS.test(e.id ?? "");

/**
 * Rounds two and three: a selector that reads the price and nothing else. Tries the price element's
 * own id, its classes scoped by a parent's class or id, its classes alone, then "after the h1" — each
 * also with struck-through copies excluded — and keeps the best that is unique on the page, or whose
 * first match is the price.
 */
export async function findCssAnchor(
  ask: TCssOracle,
  facts: TPriceCssFacts,
  price: { amount: number; currency: string | null },
): Promise<TAnchor | null> {
  const ids = new Set<string>();
  const bases = new Set<string>();
  const inner = new Set<string>();
  for (const el of facts.priceElements) {
    if (isOldElement(el)) continue;
    const exact = readsAs(el.text, price);
    // "<p class=price><del>$199.99</del> <ins>$129.99</ins></p>": the element holds the price beside an old one.
    const holds = !exact && findPrices(el.text, { limit: 5 }).some((p) => Math.abs(p.amount - price.amount) < 1e-9);
    if (!exact && !holds) continue;
    const tokens = (el.classes ?? "").split(/\s+/).filter((t) => IDENT.test(t) && !OLD_CLASS.test(t));
    if (exact) {
      if (el.id && IDENT.test(el.id)) ids.add(`#${el.id}`);
      for (const t of tokens) bases.add(`.${t}`);
      if (tokens.length > 1) bases.add(tokens.map((t) => `.${t}`).join(""));
    } else {
      const holder = el.id && IDENT.test(el.id) ? `#${el.id}` : tokens[0] ? `.${tokens[0]}` : null;
      if (holder) for (const child of ["ins", "> :not(del, s, strike)"]) inner.add(`${holder} ${child}`);
    }
  }
  const struck = facts.oldTexts.length > 0;
  const selectors = [...bases].slice(0, MAX_CANDIDATES);
  const withUnstruck = [
    ...selectors.flatMap((s) => (struck ? [s, `${s}:not(${STRUCK})`] : [s])),
    ...[...inner].slice(0, MAX_CANDIDATES),
  ];
  const idList = [...ids].slice(0, MAX_CANDIDATES);
  if (idList.length === 0 && withUnstruck.length === 0) return null;

  const round2: TCssQuery[] = [
    ...idList.map((s) => q(s)),
    ...withUnstruck.flatMap((s) => [q(s), q(`h1 ~ ${s}, h1 ~ * ${s}`)]),
    ...selectors.flatMap((s) => [q(`:has(> ${s})`, "class"), q(`:has(> ${s})`, "id")]),
  ];
  const a2 = await ask(round2);
  const found: TAnchor[] = [];
  const judge = (selector: string, matched: (string | null)[], unique: number, first: number) => {
    if (matched.length === 0 || !readsAs(matched[0], price)) return;
    const rank = matched.length === 1 ? unique : first;
    found.push({ kind: "css", rank, extractor: { kind: "css", selector } });
  };
  for (const s of idList) judge(s, values(a2, q(s)), ANCHOR_RANK.cssId, ANCHOR_RANK.cssFirst);
  for (const s of withUnstruck) {
    judge(s, values(a2, q(s)), ANCHOR_RANK.cssUnique, ANCHOR_RANK.cssFirst);
    const afterH1 = `h1 ~ ${s}, h1 ~ * ${s}`;
    judge(afterH1, values(a2, q(afterH1)), ANCHOR_RANK.cssAfterHeading, ANCHOR_RANK.cssAfterHeading);
  }

  // Scoped by a parent's id or class: ".buy-box .price" survives an ad that reuses ".price" above the product.
  const scoped = new Set<string>();
  for (const s of selectors) {
    const parents = [
      ...values(a2, q(`:has(> ${s})`, "id")).flatMap((id) => (id && IDENT.test(id) ? [`#${id}`] : [])),
      ...values(a2, q(`:has(> ${s})`, "class")).flatMap((c) =>
        (c ?? "").split(/\s+/).flatMap((t) => (IDENT.test(t) && !OLD_CLASS.test(t) ? [`.${t}`] : [])),
      ),
    ];
    for (const p of parents) {
      scoped.add(`${p} ${s}`);
      if (struck) scoped.add(`${p} ${s}:not(${STRUCK})`);
    }
  }
  const scopedList = [...scoped].slice(0, MAX_SCOPED);
  if (scopedList.length) {
    const a3 = await ask(scopedList.map((s) => q(s)));
    for (const s of scopedList) judge(s, values(a3, q(s)), ANCHOR_RANK.cssScoped, ANCHOR_RANK.cssFirst);
  }
  // Best rank; among equals the shortest selector (the plainest to read and edit).
  found.sort(
    (x, y) =>
      x.rank - y.rank ||
      (x.extractor.kind === "css" && y.extractor.kind === "css"
        ? x.extractor.selector.length - y.extractor.selector.length
        : 0),
  );
  return found[0] ?? null;
}

import { cleanUrl } from "../clean-url";
import { selectElements } from "../css-query";
import { getAttr, type THtmlElement } from "../html-tree";
import { namesWord } from "../name-tokens";
import { collapse, cssString, stableClasses, stableId, visibleText } from "./listing-dom";
import type { TListingPage } from "./listing-page";

/**
 * The next page of a listing: the link the plan names, resolved absolute and cleaned like every other URL
 * (clean-url.ts). A link to another site, or back to this page, is not a next page. Following it is the caller's
 * job (it fetches, through the same address rules as any page).
 */

const REL_NEXT = ['link[rel~="next" i][href]', 'a[rel~="next" i][href]'];
/** What a "next page" link says when it has no rel: English, German, French, Spanish, Italian, Dutch, Portuguese. */
const NEXT_WORDS = new Set([
  "next",
  "next page",
  "next ›",
  "next »",
  "next →",
  "›",
  "»",
  "→",
  "weiter",
  "nächste",
  "nächste seite",
  "suivant",
  "page suivante",
  "siguiente",
  "avanti",
  "successiva",
  "volgende",
  "próxima",
  "seguinte",
]);

function hrefOf(page: TListingPage, el: THtmlElement): string | null {
  const href = getAttr(el, "href");
  if (!href || href.trim().startsWith("#")) return null;
  const next = cleanUrl(href, page.baseUrl);
  if (!next) return null;
  const here = cleanUrl(page.url);
  try {
    if (new URL(next).host !== new URL(page.url).host || next === here) return null;
  } catch {
    return null;
  }
  return next;
}

/** The next page's URL under the plan's selector, or null. */
export function readNextPage(page: TListingPage, nextPage: { selector: string } | null): string | null {
  if (!nextPage) return null;
  for (const el of selectElements(page.tree, nextPage.selector, 20) ?? []) {
    const next = hrefOf(page, el);
    if (next) return next;
  }
  return null;
}

/** Selectors that name a next-page link without rel=next, most specific first. */
function namingSelectors(el: THtmlElement): string[] {
  const out: string[] = [];
  const id = stableId(el);
  if (id) out.push(`#${id}`);
  const cls = stableClasses(el).find((c) => namesWord(c, "next"));
  if (cls) out.push(`a.${cls}[href]`);
  const label = getAttr(el, "aria-label");
  if (label && label.length <= 40) out.push(`a[aria-label=${cssString(label)}][href]`);
  const text = collapse(visibleText(el, { maxChars: 40 }));
  if (text && NEXT_WORDS.has(text.toLowerCase())) out.push(`a:text-is(${cssString(text)})[href]`);
  return out;
}

/** How this page links to its next page, checked to read a URL on it: rel=next first, else a link named "next". */
export function detectNextPage(page: TListingPage): { selector: string } | null {
  for (const selector of REL_NEXT) if (readNextPage(page, { selector })) return { selector: REL_NEXT.join(", ") };
  for (const el of page.tree.elements) {
    if (el.name !== "a") continue;
    const label = (getAttr(el, "aria-label") ?? "").toLowerCase();
    const text = collapse(visibleText(el, { maxChars: 40 })).toLowerCase();
    const named =
      NEXT_WORDS.has(text) ||
      label === "next" ||
      label === "next page" ||
      stableClasses(el).some((c) => namesWord(c, "next"));
    if (!named || !hrefOf(page, el)) continue;
    for (const selector of namingSelectors(el)) {
      const found = selectElements(page.tree, selector, 2);
      if (found?.length === 1 && found[0] === el) return { selector };
    }
  }
  return null;
}

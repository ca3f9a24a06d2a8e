import { collapseWhitespace } from "../../../lib/collapse-whitespace";
import { isStableName } from "../anchor-element";
import { getAttr, isElement, type THtmlElement, type THtmlNode, type THtmlTree } from "../html-tree";
import { isRecommendationHeading } from "../volatile-lines";

/**
 * Small DOM helpers of the listing reader (docs/page-reading.md): visible text, the tag-and-class signature repeated
 * cards share, and the page chrome a listing never lives in. Every walk is iterative and bounded.
 */

export const collapse = collapseWhitespace;

/** Subtrees that never hold what a card shows. */
const INVISIBLE = new Set(["script", "style", "noscript", "template", "svg", "math", "select", "button"]);
/** A struck-through amount is an old price, never what the item costs now (docs/intelligence.md). */
const STRUCK = new Set(["del", "s", "strike"]);

/** The element's visible text, whitespace collapsed, at most `maxChars`; struck-through text left out on request. */
export function visibleText(el: THtmlElement, options: { skipStruck?: boolean; maxChars?: number } = {}): string {
  const max = options.maxChars ?? 2_000;
  const out: string[] = [];
  let size = 0;
  const stack: THtmlNode[] = [el];
  while (stack.length && size < max) {
    const n = stack.pop() as THtmlNode;
    if (typeof n === "string") {
      out.push(n);
      size += n.length;
      continue;
    }
    if (n !== el && (INVISIBLE.has(n.name) || (options.skipStruck && STRUCK.has(n.name)))) continue;
    // Block children are separate words ("<td>A</td><td>B</td>", "<h3>Name</h3><p>Address</p>").
    out.push(" ");
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as THtmlNode);
  }
  return collapse(out.join("")).slice(0, max);
}

/** The non-empty text pieces under an element (each text node, collapsed), at most `limit`. */
export function textParts(el: THtmlElement, limit = 20): string[] {
  const parts: string[] = [];
  const stack: THtmlNode[] = [...el.children].reverse();
  while (stack.length && parts.length < limit) {
    const n = stack.pop() as THtmlNode;
    if (typeof n === "string") {
      const t = collapse(n);
      if (t) parts.push(t);
    } else if (!INVISIBLE.has(n.name)) {
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as THtmlNode);
    }
  }
  return parts;
}

export const childElements = (el: THtmlElement): THtmlElement[] => el.children.filter(isElement);

/** Elements under `el` in document order (not `el` itself), at most `limit`. */
export function descendants(el: THtmlElement, limit = 5_000): THtmlElement[] {
  const out: THtmlElement[] = [];
  const stack = childElements(el).reverse();
  while (stack.length && out.length < limit) {
    const e = stack.pop() as THtmlElement;
    out.push(e);
    for (let i = e.children.length - 1; i >= 0; i--) {
      const c = e.children[i];
      if (isElement(c)) stack.push(c);
    }
  }
  return out;
}

/** Class names a site chose (anchor-element.ts's rule: no build hashes, no state classes). */
export function stableClasses(el: THtmlElement): string[] {
  return (getAttr(el, "class") ?? "")
    .split(/\s+/)
    .filter((c) => c && isStableName(c) && !/^(active|selected|current|first|last|odd|even|is-|has-|js-)/.test(c));
}

/** `li.product-card`: the tag and its stable classes, sorted, at most three — what repeated cards share. */
export function signature(el: THtmlElement): string {
  const classes = [...new Set(stableClasses(el))].sort().slice(0, 3);
  return `${el.name}${classes.map((c) => `.${c}`).join("")}`;
}

/** An `id` a site chose for an element (to scope a selector), or null. */
export function stableId(el: THtmlElement): string | null {
  const id = getAttr(el, "id");
  return id && isStableName(id) ? id : null;
}

/** Page chrome: navigation, header, footer, sidebars, option lists and dialogs (not forms: some pages wrap all in one). */
const CHROME = new Set(["nav", "header", "footer", "aside", "menu", "dialog", "template", "select"]);

export function insideChrome(el: THtmlElement): boolean {
  for (let p: THtmlElement | null = el, up = 0; p && up < 64; p = p.parent, up++) {
    if (CHROME.has(p.name)) return true;
    const role = getAttr(p, "role");
    if (role === "navigation" || role === "banner" || role === "contentinfo") return true;
  }
  return false;
}

/** Cross-sells a product page shows below the product; they are not the page's listing. */
const CROSS_SELL =
  /^(?:customers (?:who (?:bought|viewed) this (?:item )?)?also (?:bought|viewed|liked)|frequently bought together|related products|similar (?:products|items)|recently viewed(?: items| products)?|complete the look|you (?:may|might) also (?:like|need)|more from this (?:brand|seller|shop)|kunden kauften auch|ähnliche produkte|produits similaires|productos relacionados)\s*:?$/iu;

const HEADING = /^h[1-6]$/;

/**
 * Does the nearest heading before this part of the page introduce recommendations ("You may also like", "Related
 * products")? Looks at up to four levels around `el`, nearest first (volatile-lines.ts has the article phrases).
 */
export function underRecommendationHeading(el: THtmlElement): boolean {
  let branch = el;
  for (let p = el.parent, up = 0; p && up < 4; branch = p, p = p.parent, up++) {
    const before = childElements(p).filter((c) => c.index < branch.index);
    for (let i = before.length - 1; i >= 0; i--) {
      const c = before[i] as THtmlElement;
      const heading = HEADING.test(c.name) ? c : descendants(c, 50).findLast((d) => HEADING.test(d.name));
      if (!heading) continue;
      const text = collapse(visibleText(heading, { maxChars: 100 }));
      return isRecommendationHeading(text) || CROSS_SELL.test(text);
    }
  }
  return false;
}

/** The page's `<base href>` resolved against its URL: what relative links in it are relative to. */
export function baseUrlOf(tree: THtmlTree, url: string): string {
  for (const el of tree.elements) {
    if (el.name === "body") break;
    if (el.name !== "base") continue;
    const href = getAttr(el, "href");
    if (!href) break;
    try {
      return new URL(href, url).toString();
    } catch {
      break;
    }
  }
  return url;
}

/** `"…"` for a CSS attribute value or :text-is argument. */
export const cssString = (s: string): string => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

import { collapseWhitespace } from "../../lib/collapse-whitespace";
import { findPrices } from "../../lib/parse-price";
import { selectElements } from "./css-query";
import { buildHtmlTree, getAttr, isElement, type THtmlElement, type THtmlTree, textOf } from "./html-tree";
import { ELEMENT_NUMBER } from "./page-snapshot";

/**
 * The element a person pointed at in the page view, anchored so the anchor survives reordering and
 * cosmetic changes (docs/page-view.md): its stable id, its microdata, an id-ed part of the page it sits
 * in, the heading or label that names it, its row, its classes — a position only when nothing else
 * holds. Every anchor is a CSS selector checked on the snapshot to match that element alone, and comes
 * with the words the card shows ("the price under the heading “Pro”"). Pure; runs in a page worker.
 */

export type TElementAnchorKind = "id" | "microdata" | "part" | "heading" | "label" | "row" | "class" | "position";
export type TElementAnchor = { kind: TElementAnchorKind; rank: number; selector: string; words: string };
export type TAnchoredElement =
  | { found: false }
  | { found: true; element: number; tag: string; text: string; anchors: TElementAnchor[] };

const RANK: Record<TElementAnchorKind, number> = {
  id: 0,
  microdata: 1,
  part: 1,
  heading: 2,
  label: 2,
  row: 3,
  class: 3,
  position: 4,
};
const MAX_NAME = 40;
const MAX_UP = 6;
const HEADING = /^h[1-6]$/;
const NAME_TAGS = new Set(["strong", "b", "dt", "th", "legend", "label", "p", "span", "div", "a", "button", "caption"]);
const SKIP_TAGS = new Set(["html", "head", "body", "style", "meta", "link"]);

const collapse = collapseWhitespace;
const cssString = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/**
 * A name a site chose (kept across deploys), not one a build generated: no runs of digits, no hash
 * tails (`price_a8f3k`, `css-1x2y3z`), no framework prefixes.
 */
export function isStableName(s: string): boolean {
  return (
    /^[A-Za-z][\w-]{0,60}$/.test(s) &&
    !/\d{3,}/.test(s) &&
    !/^(css|sc|jsx|svelte|emotion|chakra|mui|makeStyles|tw)-/i.test(s) &&
    !/[_-](?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{5,}$/i.test(s)
  );
}

const stableClasses = (el: THtmlElement) =>
  (getAttr(el, "class") ?? "")
    .split(/\s+/)
    .filter((c) => c && isStableName(c) && !/^(active|selected|is-|has-)/.test(c));

/** `span.price.price-pro`: the tag and up to two stable classes. */
function descriptor(el: THtmlElement): string {
  return `${el.name}${stableClasses(el)
    .slice(0, 2)
    .map((c) => `.${c}`)
    .join("")}`;
}

/** A short text that names something (a heading, a label): no price in it, some letters, no newline. */
function nameText(el: THtmlElement): string | null {
  const t = collapse(textOf(el, 400));
  if (!t || t.length > MAX_NAME || !/\p{L}/u.test(t) || /["\\]/.test(t)) return null;
  return findPrices(t, { limit: 1 }).length ? null : t;
}

const childElements = (el: THtmlElement) => el.children.filter(isElement);
const contains = (outer: THtmlElement, inner: THtmlElement) => {
  for (let p: THtmlElement | null = inner; p; p = p.parent) if (p === outer) return true;
  return false;
};

/** A price a click landed inside ("49" of "$<b>49</b>") is the element that shows the whole price. */
function wholeValue(el: THtmlElement): THtmlElement {
  let at = el;
  for (let i = 0; i < 3 && at.parent && at.parent.name !== "body"; i++) {
    if (findPrices(collapse(textOf(at, 200)), { limit: 1 }).length) break;
    const up = collapse(textOf(at.parent, 200));
    if (up.length > MAX_NAME || findPrices(up, { limit: 2 }).length !== 1) break;
    at = at.parent;
  }
  return at;
}

function tries(el: THtmlElement, noun: string): Omit<TElementAnchor, "rank">[] {
  const out: Omit<TElementAnchor, "rank">[] = [];
  const d = descriptor(el);
  const id = getAttr(el, "id");
  if (id && isStableName(id)) out.push({ kind: "id", selector: `#${id}`, words: `the ${noun} with id “${id}”` });

  const prop = getAttr(el, "itemprop");
  if (prop && /^[\w-]{1,40}$/.test(prop)) {
    const own = `[itemprop=${cssString(prop)}]`;
    let scope: THtmlElement | null = el.parent;
    while (scope && getAttr(scope, "itemscope") === undefined) scope = scope.parent;
    const scopeId = scope ? getAttr(scope, "id") : undefined;
    if (scopeId && isStableName(scopeId))
      out.push({ kind: "microdata", selector: `#${scopeId} ${own}`, words: `the ${prop} of the item #${scopeId}` });
    const nameEl = scope
      ? selectElementsUnder(scope, (e) => getAttr(e, "itemprop") === "name" && e !== el && !!nameText(e))
      : null;
    const name = nameEl ? nameText(nameEl) : null;
    if (name)
      out.push({
        kind: "microdata",
        selector: `[itemscope]:has([itemprop="name"]:text-is(${cssString(name)})) ${own}`,
        words: `the ${prop} of “${name}”`,
      });
    out.push({ kind: "microdata", selector: own, words: `the page's ${prop}` });
  }

  // The nearest part of the page with a stable id.
  for (let p = el.parent, up = 0; p && up < 8 && !SKIP_TAGS.has(p.name); p = p.parent, up++) {
    const pid = getAttr(p, "id");
    if (pid && isStableName(pid)) {
      out.push({ kind: "part", selector: `#${pid} ${d}`, words: `the ${noun} (${d}) inside #${pid}` });
      break;
    }
  }

  // The heading or short name that opens the card it sits in, nearest card first.
  let branch = el;
  for (let p = el.parent, up = 0; p && up < MAX_UP && !SKIP_TAGS.has(p.name); branch = p, p = p.parent, up++) {
    const children = childElements(p);
    const before = children.filter((c) => c.index < branch.index && !contains(c, el));
    const heading = before.find((c) => HEADING.test(c.name) && nameText(c));
    // A card named only by the button that closes it ("Choose Duo").
    const button = children.find(
      (c) => c.index > branch.index && (c.name === "a" || c.name === "button") && nameText(c),
    );
    const named = heading ?? [...before].reverse().find((c) => NAME_TAGS.has(c.name) && nameText(c)) ?? button;
    if (!named) continue;
    const name = nameText(named) as string;
    const tag = HEADING.test(named.name) ? ":is(h1, h2, h3, h4, h5, h6)" : named.name;
    out.push({
      kind: "heading",
      selector: `:has(> ${tag}:text-is(${cssString(name)})) ${d}`,
      words: heading
        ? `the ${noun} under the heading “${name}”`
        : named === button
          ? `the ${noun} in the card with the button “${name}”`
          : `the ${noun} in the part named “${name}”`,
    });
    break;
  }

  // The label just before it ("Monthly $49", "<dt>Price</dt><dd>…").
  const prev = el.parent ? childElements(el.parent).filter((c) => c.index < el.index) : [];
  const label = prev[prev.length - 1];
  const labelText = label ? nameText(label) : null;
  if (label && labelText)
    out.push({
      kind: "label",
      selector: `${label.name}:text-is(${cssString(labelText)}) + ${d}`,
      words: `the ${noun} after “${labelText}”`,
    });

  // A table cell: the row named by its first cell, the column by its place (and header, in words).
  let cell: THtmlElement | null = el;
  while (cell && cell.name !== "td" && cell.name !== "th") cell = cell.parent;
  const row = cell?.parent?.name === "tr" ? cell.parent : null;
  if (cell && row) {
    const cells = childElements(row);
    const first = cells[0];
    const rowName = first && first !== cell ? nameText(first) : null;
    if (rowName) {
      const column = cells.indexOf(cell) + 1;
      const inner = cell === el ? "" : ` ${d}`;
      const header = columnHeader(row, column);
      out.push({
        kind: "row",
        selector: `tr:has(> :first-child:text-is(${cssString(rowName)})) > :nth-child(${column})${inner}`,
        words: `the ${noun} in the row “${rowName}”, ${header ? `column “${header}”` : `column ${column}`}`,
      });
    }
  }

  // Its classes, alone or under an ancestor's.
  if (d !== el.name) {
    out.push({ kind: "class", selector: d, words: `the ${noun} ${d}` });
    for (let p = el.parent, up = 0; p && up < 4 && !SKIP_TAGS.has(p.name); p = p.parent, up++) {
      const pd = descriptor(p);
      if (pd !== p.name) out.push({ kind: "class", selector: `${pd} ${d}`, words: `the ${noun} ${d} inside ${pd}` });
    }
  }

  // Its position under the nearest id-ed part, else the body: breaks when the page is rearranged.
  const path: string[] = [];
  let root: string | null = null;
  for (let at: THtmlElement | null = el; at?.parent && path.length < 20; at = at.parent) {
    const aid = at !== el ? getAttr(at, "id") : undefined;
    if (aid && isStableName(aid)) {
      root = `#${aid}`;
      break;
    }
    if (at.name === "body") {
      root = "body";
      break;
    }
    const k =
      childElements(at.parent)
        .filter((c) => c.name === at?.name)
        .indexOf(at) + 1;
    path.unshift(`${at.name}:nth-of-type(${k})`);
  }
  if (root && path.length)
    out.push({
      kind: "position",
      selector: `${root} > ${path.join(" > ")}`,
      words: `the ${noun} at its position on the page (it moves if the page is rearranged)`,
    });
  return out;
}

/** The text over a table column: the cell at that place in the table's first row, when it names something. */
function columnHeader(row: THtmlElement, column: number): string | null {
  let table: THtmlElement | null = row.parent;
  while (table && table.name !== "table") table = table.parent;
  if (!table) return null;
  const first = selectElementsUnder(table, (e) => e.name === "tr");
  if (!first || first === row) return null;
  const cell = childElements(first)[column - 1];
  return cell ? nameText(cell) : null;
}

function selectElementsUnder(scope: THtmlElement, test: (e: THtmlElement) => boolean): THtmlElement | null {
  const stack = [...childElements(scope)].reverse();
  while (stack.length) {
    const e = stack.pop() as THtmlElement;
    if (test(e)) return e;
    if (getAttr(e, "itemscope") !== undefined) continue;
    stack.push(...childElements(e).reverse());
  }
  return null;
}

/** The pointed element of `tree` (by its number) and every anchor that reads it alone, best first. */
export function anchorElementInTree(tree: THtmlTree, element: number): TAnchoredElement {
  const n = String(element);
  const hit = tree.elements.find((e) => getAttr(e, ELEMENT_NUMBER) === n);
  if (!hit || SKIP_TAGS.has(hit.name)) return { found: false };
  const el = wholeValue(hit);
  const text = collapse(textOf(el, 2_000)).slice(0, 300);
  const noun = findPrices(text, { limit: 2 }).length === 1 ? "price" : "value";
  const anchors: TElementAnchor[] = [];
  const seen = new Set<string>();
  for (const t of tries(el, noun)) {
    if (seen.has(t.selector) || t.selector.length > 300) continue;
    seen.add(t.selector);
    const matched = selectElements(tree, t.selector, 2);
    if (matched?.length === 1 && matched[0] === el) anchors.push({ ...t, rank: RANK[t.kind] });
  }
  anchors.sort((a, b) => a.rank - b.rank);
  return { found: true, element: Number(getAttr(el, ELEMENT_NUMBER) ?? n), tag: el.name, text, anchors };
}

export function anchorElement(html: string, element: number): TAnchoredElement {
  return anchorElementInTree(buildHtmlTree(html), element);
}

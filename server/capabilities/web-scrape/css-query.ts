import { compile, type Options } from "css-select";
import { collapseWhitespace } from "../../lib/collapse-whitespace";
import { getAttr, isElement, type THtmlElement, type THtmlNode, type THtmlTree, textOf } from "./html-tree";
import { namesWord, wordsOf } from "./name-tokens";

/**
 * CSS-selector extractors, answered from the same tree the structured document is built from (one
 * parse per page), inside the page worker. A selector is compiled once by css-select and tested
 * against the tree's elements in document order; the tree is at most MAX_TREE_DEPTH deep, so even a
 * descendant combinator does bounded work per element, and the worker's time budget covers the rest.
 */

export type TCssQuery = {
  selector: string;
  /** Read this attribute instead of the element's text. */
  attribute?: string;
  /** Every match (up to MAX_CSS_MATCHES) instead of the first. */
  all: boolean;
};

export type TCssAnswer =
  | { ok: true; values: (string | null)[] }
  | { ok: false; reason: "no_match" | "invalid_selector" };

export const MAX_CSS_MATCHES = 100;
const MAX_VALUE_CHARS = 10_000;

/** The key a query's answer is stored under. */
export const cssQueryKey = (q: TCssQuery): string => `${q.all ? "all" : "one"}|${q.attribute ?? ""}|${q.selector}`;

const isTag = (n: THtmlNode): n is THtmlElement => isElement(n) && n.name !== "#document";

type TAdapter = NonNullable<Options<THtmlNode, THtmlElement>["adapter"]>;

const adapter: TAdapter = {
  isTag,
  getAttributeValue: (el, name) => getAttr(el, name.toLowerCase()),
  getChildren: (n) => (isElement(n) ? n.children : []),
  getName: (el) => el.name,
  getParent: (el) => el.parent,
  getSiblings: (n) => (isElement(n) && n.parent ? n.parent.children : [n]),
  prevElementSibling: (n) => {
    if (!isElement(n) || !n.parent) return null;
    for (let i = n.index - 1; i >= 0; i--) {
      const s = n.parent.children[i];
      if (isElement(s)) return s;
    }
    return null;
  },
  getText: (n) => (isElement(n) ? textOf(n) : n),
  hasAttrib: (el, name) => getAttr(el, name.toLowerCase()) !== undefined,
  removeSubsets: (nodes) => {
    const set = new Set(nodes);
    return nodes.filter((n) => {
      for (let p = isElement(n) ? n.parent : null; p; p = p.parent) if (set.has(p)) return false;
      return true;
    });
  },
  equals: (a, b) => a === b,
};

/**
 * `:name-token(price, preis)`: the element's class or id names one of the words as a word (name-tokens.ts) —
 * what `[class*="price" i], [id*="price" i]` means to ask, without taking `id="precontent"` for `preco`.
 */
const pseudos: NonNullable<Options<THtmlNode, THtmlElement>["pseudos"]> = {
  /**
   * `:text-is("Pro")`: the element's whole text, whitespace collapsed, is exactly that — so a heading "Pro" does
   * not also name "Pro Plus" (`:contains` is a substring test). Used by the anchors of docs/page-view.md.
   */
  "text-is": (el, argument) => {
    const want = (argument ?? "").replace(/^(["'])([\s\S]*)\1$/, "$2").replace(/\\(.)/g, "$1");
    return collapseWhitespace(textOf(el, want.length + 200)) === want;
  },
  "name-token": (el, argument) => {
    const words = wordsOf(argument);
    const names = [getAttr(el, "class"), getAttr(el, "id")].filter((n): n is string => !!n);
    return names.some((n) => words.some((w) => namesWord(n, w)));
  },
};

const options = { adapter, pseudos };

/** Validates a selector with the engine that runs it (definitions are checked when saved). */
export function isValidCssSelector(selector: string): boolean {
  try {
    compile(selector, options);
    return true;
  } catch {
    return false;
  }
}

/** The elements `selector` matches, in document order, at most `limit`; null when it does not compile. */
export function selectElements(tree: THtmlTree, selector: string, limit = MAX_CSS_MATCHES): THtmlElement[] | null {
  let test: (el: THtmlElement) => boolean;
  try {
    test = compile(selector, options) as (el: THtmlElement) => boolean;
  } catch {
    return null;
  }
  const out: THtmlElement[] = [];
  for (const el of tree.elements) {
    if (!test(el)) continue;
    out.push(el);
    if (out.length >= limit) break;
  }
  return out;
}

function read(el: THtmlElement, attribute: string | undefined): string | null {
  const v = attribute ? (getAttr(el, attribute.toLowerCase()) ?? null) : textOf(el, MAX_VALUE_CHARS);
  return v !== null && v.length > MAX_VALUE_CHARS ? v.slice(0, MAX_VALUE_CHARS) : v;
}

export function answerCssQueries(tree: THtmlTree, queries: readonly TCssQuery[]): Record<string, TCssAnswer> {
  const answers: Record<string, TCssAnswer> = {};
  for (const q of queries) {
    const key = cssQueryKey(q);
    if (Object.hasOwn(answers, key)) continue;
    let test: (el: THtmlElement) => boolean;
    try {
      test = compile(q.selector, options) as (el: THtmlElement) => boolean;
    } catch {
      answers[key] = { ok: false, reason: "invalid_selector" };
      continue;
    }
    const values: (string | null)[] = [];
    for (const el of tree.elements) {
      if (!test(el)) continue;
      values.push(read(el, q.attribute));
      if (!q.all || values.length >= MAX_CSS_MATCHES) break;
    }
    answers[key] = values.length ? { ok: true, values } : { ok: false, reason: "no_match" };
  }
  return answers;
}

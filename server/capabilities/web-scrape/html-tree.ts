import { Tokenizer, type TokenizerCallbacks } from "htmlparser2";

/**
 * One linear pass from HTML to a small DOM, built on htmlparser2's streaming Tokenizer (css-select
 * queries it through the adapter in css-query.ts; plain objects, because domhandler's nodes cost
 * ~2 µs each to construct). htmlparser2's own Parser keeps its open-element stack with
 * `unshift`/`indexOf`, which is quadratic in unclosed tags (200,000 `<div>`s took 22 s); here every
 * stack operation is O(1) amortised:
 * - open elements are a push/pop array plus a count per tag name, so "is a </x> open?" is a lookup;
 * - an end tag pops up to its match (each element is popped once), an unmatched one is ignored;
 * - implied ends (`<p>` closes an open `<p>`, `<li>` an `<li>`…) pop only from the top.
 * Like Chromium (kMaximumHTMLParserDOMTreeDepth), the tree is at most MAX_TREE_DEPTH deep: deeper
 * elements become children of the deepest allowed one, so no later walk or selector can go deeper.
 * Every walk over this tree is iterative. docs/design.md §5: no page can stall the server.
 */

export const MAX_TREE_DEPTH = 512;

/** Beyond this many elements, further start tags are dropped (their text is kept): bounds memory. */
export const MAX_TREE_ELEMENTS = 300_000;

/** An element; text is a plain string child. `attrs` is [name, value, name, value…], names lowercase. */
export type THtmlElement = {
  name: string;
  attrs: string[];
  parent: THtmlElement | null;
  children: THtmlNode[];
  /** Position among the parent's children. */
  index: number;
};
export type THtmlNode = THtmlElement | string;

export type THtmlTree = {
  /** The document: an element named "#document". */
  root: THtmlElement;
  /** Every element in document order (css queries iterate this instead of walking the tree). */
  elements: THtmlElement[];
};

export const isElement = (node: THtmlNode | null | undefined): node is THtmlElement =>
  typeof node === "object" && node !== null;

export function getAttr(el: THtmlElement, name: string): string | undefined {
  const a = el.attrs;
  for (let i = 0; i < a.length; i += 2) if (a[i] === name) return a[i + 1];
  return undefined;
}

const VOID = new Set([
  "area",
  "base",
  "basefont",
  "bgsound",
  "br",
  "col",
  "embed",
  "frame",
  "hr",
  "img",
  "input",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

const P_CLOSERS = [
  "address",
  "article",
  "aside",
  "blockquote",
  "dd",
  "details",
  "dialog",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "li",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "ul",
];

/** Start tag → open elements it closes when they are the current node (HTML's implied end tags). */
const IMPLIES_CLOSE = new Map<string, Set<string>>();
for (const tag of P_CLOSERS) IMPLIES_CLOSE.set(tag, new Set(["p"]));
const add = (tags: string[], closes: string[]) => {
  for (const t of tags) IMPLIES_CLOSE.set(t, new Set([...(IMPLIES_CLOSE.get(t) ?? []), ...closes]));
};
add(["li"], ["li"]);
add(["dt", "dd"], ["dt", "dd"]);
add(["option"], ["option"]);
add(["optgroup"], ["option", "optgroup"]);
add(["tr"], ["tr", "td", "th"]);
add(["td", "th"], ["td", "th"]);
add(["thead", "tbody", "tfoot"], ["thead", "tbody", "tfoot", "tr", "td", "th"]);
add(["rt", "rp"], ["rt", "rp"]);

const FOREIGN = new Set(["svg", "math"]);

/** Builds the tree. Never throws on malformed markup; linear in the input. */
export function buildHtmlTree(html: string): THtmlTree {
  const root: THtmlElement = { name: "#document", attrs: [], parent: null, children: [], index: 0 };
  const elements: THtmlElement[] = [];
  const stack: THtmlElement[] = [];
  const openCount = new Map<string, number>();
  let foreignDepth = 0;

  let tagName = "";
  let attribs: string[] | null = null;
  let attribName = "";
  let attribValue = "";

  const currentParent = (): THtmlElement =>
    stack.length === 0 ? root : (stack[Math.min(stack.length, MAX_TREE_DEPTH - 1) - 1] as THtmlElement);

  const appendText = (data: string) => {
    if (!data) return;
    const children = currentParent().children;
    const last = children.length - 1;
    if (last >= 0 && typeof children[last] === "string") children[last] += data;
    else children.push(data);
  };

  const pop = () => {
    const el = stack.pop() as THtmlElement;
    openCount.set(el.name, (openCount.get(el.name) ?? 1) - 1);
    if (FOREIGN.has(el.name)) foreignDepth--;
  };

  const openElement = (name: string, attrs: string[]): THtmlElement | undefined => {
    if (elements.length >= MAX_TREE_ELEMENTS) return undefined;
    const closes = foreignDepth === 0 ? IMPLIES_CLOSE.get(name) : undefined;
    if (closes) while (stack.length && closes.has((stack[stack.length - 1] as THtmlElement).name)) pop();
    const parent = currentParent();
    const el: THtmlElement = { name, attrs, parent, children: [], index: parent.children.length };
    parent.children.push(el);
    elements.push(el);
    if (!VOID.has(name) || foreignDepth > 0) {
      stack.push(el);
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
      if (FOREIGN.has(name)) foreignDepth++;
    }
    return el;
  };

  const closeElement = (name: string) => {
    if (openCount.get(name)) {
      for (;;) {
        const top = stack[stack.length - 1] as THtmlElement;
        pop();
        if (top.name === name) return;
      }
    }
    // Unmatched end tags are ignored, as browsers do — except </p> and </br>, which browsers turn into elements.
    if (foreignDepth === 0 && (name === "p" || name === "br")) {
      const el = openElement(name, []);
      if (el && name === "p") pop();
    }
  };

  const finishOpenTag = () => {
    if (attribs === null) return;
    const el = openElement(tagName, attribs);
    attribs = null;
    return el;
  };

  const slice = (start: number, end: number) => html.slice(start, end);

  const callbacks: TokenizerCallbacks = {
    onattribdata(start, end) {
      attribValue += slice(start, end);
    },
    onattribentity(codepoint) {
      attribValue += String.fromCodePoint(codepoint);
    },
    onattribend(_quote, _end) {
      if (attribs && attribs.length < 200) {
        let seen = false;
        for (let i = 0; i < attribs.length; i += 2) if (attribs[i] === attribName) seen = true;
        if (!seen) attribs.push(attribName, attribValue);
      }
      attribValue = "";
    },
    onattribname(start, end) {
      attribName = slice(start, end).toLowerCase();
    },
    oncdata() {},
    onclosetag(start, end) {
      closeElement(slice(start, end).toLowerCase());
    },
    oncomment() {},
    ondeclaration() {},
    onend() {},
    onopentagend() {
      finishOpenTag();
    },
    onopentagname(start, end) {
      tagName = slice(start, end).toLowerCase();
      attribs = [];
    },
    onprocessinginstruction() {},
    onselfclosingtag() {
      const el = finishOpenTag();
      // `<x/>` closes itself only in svg/math; in HTML the slash is ignored.
      if (el && foreignDepth > 0 && stack[stack.length - 1] === el) pop();
    },
    ontext(start, end) {
      appendText(slice(start, end));
    },
    ontextentity(codepoint) {
      appendText(String.fromCodePoint(codepoint));
    },
    isInForeignContext() {
      return foreignDepth > 0;
    },
  };

  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks);
  tokenizer.write(html);
  tokenizer.end();
  return { root, elements };
}

/** Concatenated text of an element's descendants (iterative; at most `maxChars`, script/style included). */
export function textOf(node: THtmlElement, maxChars = 100_000): string {
  const out: string[] = [];
  let size = 0;
  const stack: THtmlNode[] = [];
  for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as THtmlNode);
  while (stack.length && size < maxChars) {
    const n = stack.pop() as THtmlNode;
    if (typeof n === "string") {
      out.push(n);
      size += n.length;
    } else {
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as THtmlNode);
    }
  }
  const text = out.join("");
  return text.length > maxChars ? text.slice(0, maxChars) : text;
}

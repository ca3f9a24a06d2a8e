import { collapseWhitespace } from "../../lib/collapse-whitespace";
import { buildHtmlTree, getAttr, type THtmlElement, type THtmlNode, type THtmlTree, textOf } from "./html-tree";
import { isAdLabel, isRecommendationHeading, isVolatilePhrase } from "./volatile-lines";

/**
 * One iterative walk over the page's tree (html-tree.ts) that collects what the structured document
 * needs — visible text per content region, h1–h3, title, canonical link, description, JSON-LD,
 * microdata items and OpenGraph product tags. Linear in the tree: every element is entered and left
 * once; per-element text (headings, microdata values) is capped, so nothing re-reads the page.
 */

export type TMicrodataItem = {
  /** itemtype URLs/names as written (may be several, space-separated in the page). */
  types: string[];
  /** itemprop names → values (content / href / src / value / datetime attribute, else the text). */
  props: Record<string, string[]>;
  /** Index of the item this one is a property of (itemscope nesting), or -1 for a top-level item. */
  parent: number;
  /** The itemprop under which this item hangs in its parent ("offers"…), if any. */
  asProp: string | null;
};

export type THtmlScan = {
  title: string | null;
  ogTitle: string | null;
  description: string | null;
  canonicalHref: string | null;
  jsonLd: string[];
  /**
   * Visible text of the chosen content root (<main>, else [role=main], else a single <article>, else
   * everything), raw: blocks are separated by BLOCK_SEPARATOR, whitespace is not yet collapsed.
   */
  text: string;
  headings: string[];
  /** <meta property|name="og:…" / "product:…"> values, keys lowercased (first value wins). */
  metaProperties: Record<string, string>;
  microdata: TMicrodataItem[];
};

/** Subtrees that are never readable content. */
const SKIP = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "nav",
  "footer",
  "aside",
  "iframe",
  "object",
  "embed",
  "canvas",
  "select", // option lists are UI chrome (country pickers…), not content
  "dialog",
]);

/** Elements that start a new line of text. */
const BLOCK = new Set([
  "address",
  "article",
  "blockquote",
  "body",
  "caption",
  "dd",
  "details",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "thead",
  "tfoot",
  "tr",
  "ul",
]);

/** Elements whose text must not run into the neighbour's ("<td>Price</td><td>9.99</td>"). */
const SPACED = new Set(["td", "th", "label", "button", "option", "textarea"]);

/** Marks block boundaries in the raw text (NUL never survives into text: it is stripped below). */
export const BLOCK_SEPARATOR = "\u0000";

const MAX_HEADINGS = 200;
const MAX_HEADING_CHARS = 1_000;
const MAX_JSON_LD_SCRIPTS = 20;
const MAX_MICRODATA_ITEMS = 200;
const MAX_PROP_VALUES = 20;
const MAX_PROP_CHARS = 500;

const collapse = (s: string) => collapseWhitespace(s.replaceAll(BLOCK_SEPARATOR, " "));

function isHidden(el: THtmlElement): boolean {
  if (getAttr(el, "hidden") !== undefined) return true;
  if (getAttr(el, "aria-hidden")?.toLowerCase() === "true") return true;
  if (el.name === "input" && getAttr(el, "type")?.toLowerCase() === "hidden") return true;
  const style = getAttr(el, "style")?.toLowerCase();
  return !!style && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/.test(style);
}

/** Where microdata reads a property's value from (HTML Living Standard, "values"). */
function microdataValue(el: THtmlElement): string {
  const attr = (name: string) => getAttr(el, name);
  const content = attr("content");
  if (content !== undefined) return content;
  switch (el.name) {
    case "a":
    case "area":
    case "link":
      return attr("href") ?? "";
    case "img":
    case "audio":
    case "embed":
    case "iframe":
    case "source":
    case "track":
    case "video":
      return attr("src") ?? "";
    case "object":
      return attr("data") ?? "";
    case "data":
    case "meter":
      return attr("value") ?? "";
    case "time":
      return attr("datetime") ?? textOf(el, MAX_PROP_CHARS);
    default:
      return textOf(el, MAX_PROP_CHARS);
  }
}

type TFrame = {
  el: THtmlElement;
  skip: boolean;
  foreign: boolean;
  block: boolean;
  spaced: boolean;
  region: "main" | "role" | "article" | null;
  regionStart: number;
  heading: number;
  /** Microdata item index opened by this element's itemscope, or -1. */
  item: number;
  /** Where this element's own text starts in `parts` (after its opening separator). */
  textStart: number;
  /** Its previous element sibling is the heading of a recommendation block ("Related articles"). */
  afterRecommendation: boolean;
};

/** Blocks that may be an ad slot or a recommendation block; regions (main, article, body) never are. */
const DROPPABLE = new Set(["div", "section", "ul", "ol", "dl", "p", "figure", "header", "details", "table"]);
const HEADING = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** An ad slot is small: its label and a line or two of copy. */
const MAX_AD_BLOCK = 400;
/** A recommendation block: its heading and headlines (short lines), nothing like a body. */
const MAX_RECOMMENDATION_BLOCK = 4_000;
const MAX_HEADLINE = 200;
/** A cheap first look before the volatile-phrase patterns: a digit or a word of a relative time. */
const MAYBE_VOLATILE = /\d|ago|now|yesterday|today|gestern|heute|eben|hier|instant|aujourd|ayer|hoy|ahora/i;
/** How many pieces of text (and block breaks) are read to find a block's first line. */
const MAX_FIRST_LINE_PARTS = 64;

function previousElement(el: THtmlElement): THtmlElement | null {
  const siblings = el.parent?.children ?? [];
  for (let i = el.index - 1; i >= 0; i--) {
    const s = siblings[i];
    if (typeof s !== "string") return s ?? null;
    if (s.trim()) return null; // text between them: not a heading and its list
  }
  return null;
}

export function scanHtml(input: string | THtmlTree): THtmlScan {
  const tree = typeof input === "string" ? buildHtmlTree(input) : input;
  const out: THtmlScan = {
    title: null,
    ogTitle: null,
    description: null,
    canonicalHref: null,
    jsonLd: [],
    text: "",
    headings: [],
    metaProperties: {},
    microdata: [],
  };
  const parts: string[] = [];
  const headings: { at: number; text: string }[] = [];
  let skipDepth = 0;
  let foreignDepth = 0; // inside svg/math/template: their <title>s and scripts are not the page's
  const itemStack: number[] = []; // open microdata items
  const regions: { main: [number, number] | null; role: [number, number] | null; articles: [number, number][] } = {
    main: null,
    role: null,
    articles: [],
  };

  const emitText = (raw: string) => {
    if (skipDepth === 0 && raw.length) {
      parts.push(raw.includes(BLOCK_SEPARATOR) ? raw.replaceAll(BLOCK_SEPARATOR, "") : raw);
    }
  };

  const addProp = (item: number, name: string, value: string) => {
    const props = (out.microdata[item] as TMicrodataItem).props;
    const list = props[name] ?? [];
    if (list.length < MAX_PROP_VALUES) list.push(collapse(value).slice(0, MAX_PROP_CHARS));
    props[name] = list;
  };

  /** Headings ("Related articles", "Meistgelesen") whose next sibling is a recommendation list. */
  const recommendationHeadings = new Set<THtmlElement>();

  /**
   * The first line of text in parts[from…], collapsed (null when it runs longer than `max`), and whether any
   * text follows it. Bounded: 200,000 empty nested blocks must not make each of them rescan the rest (hostile pages).
   */
  const firstLine = (from: number, max: number): { line: string | null; more: boolean } => {
    let line = "";
    const end = Math.min(parts.length, from + MAX_FIRST_LINE_PARTS);
    let i = from;
    for (; i < end; i++) {
      const p = parts[i] as string;
      if (p === BLOCK_SEPARATOR) {
        if (line.trim()) break;
        continue;
      }
      line += p;
      if (line.length > max * 2) return { line: null, more: true };
    }
    let more = end < parts.length;
    for (let j = i; j < end && !more; j++) more = parts[j] !== BLOCK_SEPARATOR && (parts[j] as string).trim() !== "";
    const l = collapse(line);
    return { line: l && l.length <= max ? l : null, more };
  };

  /** The lines of parts[from…] when they are at most `maxChars` in all, else null. */
  const linesFrom = (from: number, maxChars: number): string[] | null => {
    let size = 0;
    for (let i = from; i < parts.length; i++) {
      size += (parts[i] as string).length;
      if (size > maxChars) return null;
    }
    return parts.slice(from).join("").split(BLOCK_SEPARATOR).map(collapse).filter(Boolean);
  };

  /**
   * An element that is only a counter or a relative time, an ad slot (a label such as "Advertisement" or
   * "Anzeige" above a little copy), a recommendation block
   * ("You may also like" above headlines), or the list right after such a heading: left out whole.
   * A block that is only the label or heading stays (the text filter drops that line), so that the block
   * around it is still recognised.
   */
  const dropsAsVolatile = (f: TFrame): boolean => {
    const name = f.el.name;
    const { line: first, more } = firstLine(f.textStart, 60);
    // "<span>3 hours ago</span>", "<time>gestern</time>", "<a>12 comments</a>": the element is only a counter or a time.
    if (first && !more && MAYBE_VOLATILE.test(first) && isVolatilePhrase(first)) return true;
    if (HEADING.has(name)) {
      if (first && !more && isRecommendationHeading(first)) recommendationHeadings.add(f.el);
      return false;
    }
    if (!DROPPABLE.has(name)) return false;
    if (f.afterRecommendation) {
      const lines = linesFrom(f.textStart, MAX_RECOMMENDATION_BLOCK);
      return !!lines && lines.every((l) => l.length <= MAX_HEADLINE);
    }
    if (!first || !more) return false;
    if (isAdLabel(first)) {
      const lines = linesFrom(f.textStart, MAX_AD_BLOCK);
      return !!lines && lines.length > 1;
    }
    if (isRecommendationHeading(first)) {
      const lines = linesFrom(f.textStart, MAX_RECOMMENDATION_BLOCK);
      return !!lines && lines.length > 1 && lines.slice(1).every((l) => l.length <= MAX_HEADLINE);
    }
    return false;
  };

  /** Handles an element on the way in; returns its frame, or null when its subtree is not walked. */
  const enter = (el: THtmlElement): TFrame | null => {
    const name = el.name;
    const foreign = name === "svg" || name === "math" || name === "template";

    // Microdata: itemprop values belong to the nearest open item.
    const itemprop = getAttr(el, "itemprop");
    const hasScope = getAttr(el, "itemscope") !== undefined;
    const currentItem = itemStack.length ? (itemStack[itemStack.length - 1] as number) : -1;
    let item = -1;
    if (foreignDepth === 0 && hasScope && out.microdata.length < MAX_MICRODATA_ITEMS) {
      item = out.microdata.length;
      out.microdata.push({
        types: (getAttr(el, "itemtype") ?? "").split(/\s+/).filter(Boolean),
        props: {},
        parent: itemprop !== undefined ? currentItem : -1,
        asProp: itemprop !== undefined ? (itemprop.split(/\s+/)[0] ?? null) : null,
      });
    } else if (foreignDepth === 0 && itemprop !== undefined && currentItem >= 0) {
      const value = microdataValue(el);
      for (const prop of itemprop.split(/\s+/).filter(Boolean)) addProp(currentItem, prop, value);
    }

    switch (name) {
      case "br":
        if (skipDepth === 0) parts.push(BLOCK_SEPARATOR);
        return null;
      case "img": {
        const alt = getAttr(el, "alt");
        if (skipDepth === 0 && alt && !isHidden(el)) {
          const a = collapse(alt);
          if (a) parts.push(" ", a, " "); // alt text is content ("4.5 out of 5 stars"); src is not
        }
        return null;
      }
      case "link": {
        const rel = (getAttr(el, "rel") ?? "").toLowerCase().split(/\s+/);
        if (out.canonicalHref === null && foreignDepth === 0 && rel.includes("canonical"))
          out.canonicalHref = getAttr(el, "href") ?? null;
        return null;
      }
      case "meta": {
        if (foreignDepth > 0) return null;
        const key = (getAttr(el, "property") ?? getAttr(el, "name") ?? "").toLowerCase().trim();
        const content = collapse(getAttr(el, "content") ?? "");
        if (!content || !key) return null;
        if (key === "description") out.description = content;
        else if (key === "og:description") out.description ??= content;
        else if (key === "og:title") out.ogTitle ??= content;
        if ((key.startsWith("og:") || key.startsWith("product:")) && !Object.hasOwn(out.metaProperties, key))
          out.metaProperties[key] = content;
        return null;
      }
      case "title":
        if (out.title === null && foreignDepth === 0) out.title = collapse(textOf(el, 10_000)) || null;
        return null;
      case "script": {
        if (foreignDepth === 0 && out.jsonLd.length < MAX_JSON_LD_SCRIPTS) {
          const type = getAttr(el, "type")?.toLowerCase().trim() ?? "";
          if (type.startsWith("application/ld+json")) out.jsonLd.push(textOf(el, 1_000_000));
        }
        return null;
      }
      case "textarea":
        if (skipDepth === 0 && !isHidden(el)) {
          parts.push(" ");
          emitText(textOf(el));
          parts.push(" ");
        }
        return null;
      case "style":
        return null;
    }

    const skip = SKIP.has(name) || isHidden(el);
    const frame: TFrame = {
      el,
      skip,
      foreign,
      block: BLOCK.has(name),
      spaced: SPACED.has(name),
      region: null,
      regionStart: 0,
      heading: -1,
      item,
      textStart: 0,
      afterRecommendation: false,
    };
    if (foreign) foreignDepth++;
    if (item >= 0) itemStack.push(item);
    if (skipDepth === 0 && !skip) {
      if (frame.block) parts.push(BLOCK_SEPARATOR);
      else if (frame.spaced) parts.push(" ");
      if (name === "h1" || name === "h2" || name === "h3") frame.heading = parts.length;
      if (name === "main" && regions.main === null) frame.region = "main";
      else if (name === "article") frame.region = "article";
      else if (regions.role === null && getAttr(el, "role")?.toLowerCase() === "main") frame.region = "role";
      frame.regionStart = parts.length;
      frame.textStart = parts.length;
      const prev = recommendationHeadings.size ? previousElement(el) : null;
      frame.afterRecommendation = prev !== null && recommendationHeadings.has(prev);
    }
    if (skip) skipDepth++;
    return frame;
  };

  const leave = (f: TFrame) => {
    if (f.skip) skipDepth--;
    if (f.foreign) foreignDepth--;
    if (f.item >= 0) itemStack.pop();
    if (f.skip || skipDepth > 0) return;
    if (f.region === null && dropsAsVolatile(f)) {
      // Ad slots and recommendation blocks change on every visit; they are not what the page says.
      parts.length = f.textStart;
      while (headings.length && (headings[headings.length - 1] as { at: number }).at >= f.textStart) headings.pop();
      while (regions.articles.length && (regions.articles.at(-1) as [number, number])[0] >= f.textStart)
        regions.articles.pop();
      if (regions.main && regions.main[0] >= f.textStart) regions.main = null;
      if (regions.role && regions.role[0] >= f.textStart) regions.role = null;
      if (f.block) parts.push(BLOCK_SEPARATOR);
      return;
    }
    if (f.heading >= 0 && headings.length < MAX_HEADINGS) {
      // Capped: an unclosed <h1> may hold the rest of the page.
      const slice: string[] = [];
      let size = 0;
      for (let i = f.heading; i < parts.length && size < MAX_HEADING_CHARS; i++) {
        const p = parts[i] as string;
        slice.push(p);
        size += p.length;
      }
      const text = collapse(slice.join("")).slice(0, MAX_HEADING_CHARS);
      if (text) headings.push({ at: f.heading, text });
    }
    if (f.block) parts.push(BLOCK_SEPARATOR);
    else if (f.spaced) parts.push(" ");
    if (f.region) {
      const range: [number, number] = [f.regionStart, parts.length];
      if (f.region === "main") regions.main ??= range;
      else if (f.region === "role") regions.role ??= range;
      else regions.articles.push(range);
    }
  };

  // Iterative depth-first walk: a node, or a frame to leave.
  const work: (THtmlNode | TFrame)[] = [];
  for (let i = tree.root.children.length - 1; i >= 0; i--) work.push(tree.root.children[i] as THtmlNode);
  while (work.length) {
    const next = work.pop() as THtmlNode | TFrame;
    if (typeof next === "string") {
      emitText(next);
      continue;
    }
    if ("el" in next) {
      leave(next);
      continue;
    }
    const frame = enter(next);
    if (!frame) continue;
    work.push(frame);
    for (let i = next.children.length - 1; i >= 0; i--) work.push(next.children[i] as THtmlNode);
  }

  const articleRange = regions.articles.length === 1 ? (regions.articles[0] ?? null) : null;
  const range = regions.main ?? regions.role ?? articleRange ?? [0, parts.length];
  out.text = parts.slice(range[0], range[1]).join("");
  for (const h of headings)
    if (h.at >= range[0] && h.at < range[1] && !isRecommendationHeading(h.text)) out.headings.push(h.text);
  return out;
}

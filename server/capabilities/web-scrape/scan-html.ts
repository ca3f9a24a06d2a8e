import { decodeHTML } from "entities";

/**
 * A single forward pass over HTML that collects what the structured document needs — visible text
 * per content region, h1–h3, title, canonical link, description and JSON-LD — without building a
 * DOM. The hot loop formats every fetched page, and a tree builder spent most of its time
 * allocating nodes the document never looks at; this is linear with few allocations.
 *
 * It follows the browser's rules where they matter for visible text: raw-text elements (script,
 * style…) end only at their own end tag, comments are skipped, an end tag closes every element
 * opened after its match (so an unclosed <nav> ends with its parent), unmatched end tags are
 * ignored. Implied end tags (<p>, <li>…) do not matter for text and are not modelled.
 */

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

/** Content is raw text up to the matching end tag (never markup). */
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"]);

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
  "keygen",
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
const SPACED = new Set(["td", "th", "label", "button", "option"]);

/** Marks block boundaries in the raw text (NUL never survives into text: it is stripped below). */
export const BLOCK_SEPARATOR = "\u0000";

const MAX_HEADINGS = 200;
const MAX_JSON_LD_SCRIPTS = 20;

const collapse = (s: string) => s.replaceAll(BLOCK_SEPARATOR, " ").replace(/\s+/g, " ").trim();
const decode = (s: string) => (s.includes("&") ? decodeHTML(s) : s);

const ATTR_RE = /([^\s"'=<>/`]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

/** Attribute names lowercased, values entity-decoded. Only called for the few tags we inspect. */
export function parseAttributes(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  ATTR_RE.lastIndex = 0;
  for (let m = ATTR_RE.exec(raw); m; m = ATTR_RE.exec(raw)) {
    const name = (m[1] ?? "").toLowerCase();
    if (!out.has(name)) out.set(name, decode(m[2] ?? m[3] ?? m[4] ?? ""));
  }
  return out;
}

function isHidden(raw: string): boolean {
  // Cheap substring prefilter first: most tags have no reason to be parsed.
  if (!raw.includes("hidden") && !raw.includes("none")) return false;
  const a = parseAttributes(raw);
  if (a.has("hidden")) return true;
  if (a.get("aria-hidden")?.toLowerCase() === "true") return true;
  if (a.get("type")?.toLowerCase() === "hidden") return true;
  const style = a.get("style")?.toLowerCase();
  return !!style && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/.test(style);
}

const isNameChar = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 58 || c === 95 || c === 46;

/** Index of `</name` (case-insensitive, followed by a non-name char) at or after `from`, or -1. */
function findEndTag(html: string, from: number, name: string): number {
  let i = from;
  for (;;) {
    i = html.indexOf("</", i);
    if (i < 0) return -1;
    const after = i + 2 + name.length;
    if (html.slice(i + 2, after).toLowerCase() === name && !isNameChar(html.charCodeAt(after))) return i;
    i += 2;
  }
}

/** End of a start tag: the first '>' not inside a quoted attribute value. Returns -1 if unterminated. */
function findTagEnd(html: string, from: number): number {
  let afterEquals = false;
  for (let i = from; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (c === 62 /* > */) return i;
    if (c === 61 /* = */) {
      afterEquals = true;
      continue;
    }
    if ((c === 34 || c === 39) /* " ' */ && afterEquals) {
      const close = html.indexOf(c === 34 ? '"' : "'", i + 1);
      if (close < 0) return -1;
      i = close;
    }
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) afterEquals = false;
  }
  return -1;
}

type TOpen = {
  name: string;
  skip: boolean;
  block: boolean;
  spaced: boolean;
  region: "main" | "role" | "article" | null;
  heading: number;
};

export function scanHtml(html: string): THtmlScan {
  const out: THtmlScan = {
    title: null,
    ogTitle: null,
    description: null,
    canonicalHref: null,
    jsonLd: [],
    text: "",
    headings: [],
  };
  const parts: string[] = [];
  const headings: { at: number; text: string }[] = [];
  const stack: TOpen[] = [];
  const openCount = new Map<string, number>();
  let skipDepth = 0;
  let foreignDepth = 0; // inside svg/math/template: their <title>s and scripts are not the page's
  // Content regions as [start, end) indexes into `parts` (an object, so closures can update it).
  const regions: { main: [number, number] | null; role: [number, number] | null; articles: [number, number][] } = {
    main: null,
    role: null,
    articles: [],
  };
  const regionStart = new Map<TOpen, number>();

  const emitText = (raw: string) => {
    if (skipDepth === 0 && raw.length) {
      const text = decode(raw);
      parts.push(text.includes(BLOCK_SEPARATOR) ? text.replaceAll(BLOCK_SEPARATOR, "") : text);
    }
  };

  const close = (el: TOpen) => {
    openCount.set(el.name, (openCount.get(el.name) ?? 1) - 1);
    if (el.skip) skipDepth--;
    if (el.name === "svg" || el.name === "math" || el.name === "template") foreignDepth--;
    if (el.skip || skipDepth > 0) return;
    if (el.heading >= 0 && headings.length < MAX_HEADINGS) {
      const text = collapse(parts.slice(el.heading).join(""));
      if (text) headings.push({ at: el.heading, text });
    }
    if (el.block) parts.push(BLOCK_SEPARATOR);
    else if (el.spaced) parts.push(" ");
    if (el.region) {
      const range: [number, number] = [regionStart.get(el) ?? 0, parts.length];
      regionStart.delete(el);
      if (el.region === "main") regions.main ??= range;
      else if (el.region === "role") regions.role ??= range;
      else regions.articles.push(range);
    }
  };

  const open = (name: string, rawAttrs: string, selfClosing: boolean) => {
    if (name === "br") {
      if (skipDepth === 0) parts.push(BLOCK_SEPARATOR);
      return;
    }
    if (name === "img") {
      if (skipDepth === 0 && rawAttrs.includes("alt")) {
        const alt = collapse(parseAttributes(rawAttrs).get("alt") ?? "");
        if (alt) parts.push(" ", alt, " "); // alt text is content ("4.5 out of 5 stars"); src is not
      }
      return;
    }
    if (name === "link") {
      if (out.canonicalHref === null && /canonical/i.test(rawAttrs)) {
        const a = parseAttributes(rawAttrs);
        if ((a.get("rel") ?? "").toLowerCase().split(/\s+/).includes("canonical"))
          out.canonicalHref = a.get("href") ?? null;
      }
      return;
    }
    if (name === "meta") {
      if (/description|og:title/i.test(rawAttrs)) {
        const a = parseAttributes(rawAttrs);
        const key = (a.get("name") ?? a.get("property") ?? "").toLowerCase();
        const content = collapse(a.get("content") ?? "");
        if (content && key === "description") out.description = content;
        else if (content && key === "og:description") out.description ??= content;
        else if (content && key === "og:title") out.ogTitle ??= content;
      }
      return;
    }
    if (VOID.has(name) || (selfClosing && foreignDepth > 0)) return;

    const skip = SKIP.has(name) || isHidden(rawAttrs);
    const el: TOpen = { name, skip, block: BLOCK.has(name), spaced: SPACED.has(name), region: null, heading: -1 };
    if (name === "svg" || name === "math" || name === "template") foreignDepth++;
    if (skipDepth === 0 && !skip) {
      if (el.block) parts.push(BLOCK_SEPARATOR);
      else if (el.spaced) parts.push(" ");
      if (name === "h1" || name === "h2" || name === "h3") el.heading = parts.length;
      if (name === "main" && regions.main === null) el.region = "main";
      else if (name === "article") el.region = "article";
      else if (
        regions.role === null &&
        rawAttrs.includes("role") &&
        parseAttributes(rawAttrs).get("role")?.toLowerCase() === "main"
      ) {
        el.region = "role";
      }
      if (el.region) regionStart.set(el, parts.length);
    }
    if (skip) skipDepth++;
    stack.push(el);
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
  };

  const closeTag = (name: string) => {
    if (!openCount.get(name)) return; // unmatched end tag: ignored, as browsers do
    for (;;) {
      const el = stack.pop();
      if (!el) return;
      close(el);
      if (el.name === name) return;
    }
  };

  const len = html.length;
  let i = 0;
  while (i < len) {
    const lt = html.indexOf("<", i);
    if (lt < 0) {
      emitText(html.slice(i));
      break;
    }
    if (lt > i) emitText(html.slice(i, lt));
    const c = html.charCodeAt(lt + 1);
    if (c === 33 /* ! */) {
      if (html.startsWith("<!--", lt)) {
        const end = html.indexOf("-->", lt + 4);
        i = end < 0 ? len : end + 3;
      } else {
        const end = html.indexOf(">", lt + 2); // doctype, CDATA, bogus comment
        i = end < 0 ? len : end + 1;
      }
      continue;
    }
    if (c === 63 /* ? */) {
      const end = html.indexOf(">", lt + 2);
      i = end < 0 ? len : end + 1;
      continue;
    }
    const isEnd = c === 47; /* / */
    const nameStart = isEnd ? lt + 2 : lt + 1;
    const first = html.charCodeAt(nameStart);
    if (!((first >= 97 && first <= 122) || (first >= 65 && first <= 90))) {
      if (isEnd) {
        const end = html.indexOf(">", lt + 2); // "</ x>" is a bogus comment
        i = end < 0 ? len : end + 1;
      } else {
        emitText("<"); // a literal "<" in text
        i = lt + 1;
      }
      continue;
    }
    let nameEnd = nameStart + 1;
    while (nameEnd < len && isNameChar(html.charCodeAt(nameEnd))) nameEnd++;
    const name = html.slice(nameStart, nameEnd).toLowerCase();
    const tagEnd = findTagEnd(html, nameEnd);
    if (tagEnd < 0) break; // unterminated tag at EOF: nothing visible follows
    i = tagEnd + 1;
    if (isEnd) {
      closeTag(name);
      continue;
    }
    const rawAttrs = html.slice(nameEnd, tagEnd);
    const selfClosing = html.charCodeAt(tagEnd - 1) === 47;

    if (RAW_TEXT.has(name)) {
      const endTag = findEndTag(html, i, name);
      const content = html.slice(i, endTag < 0 ? len : endTag);
      const after = endTag < 0 ? len : html.indexOf(">", endTag);
      i = after < 0 ? len : after + 1;
      if (name === "title") {
        if (out.title === null && foreignDepth === 0) out.title = collapse(decode(content)) || null;
      } else if (name === "script") {
        if (foreignDepth === 0 && out.jsonLd.length < MAX_JSON_LD_SCRIPTS && rawAttrs.includes("ld+json")) {
          const type = parseAttributes(rawAttrs).get("type")?.toLowerCase() ?? "";
          if (type.startsWith("application/ld+json")) out.jsonLd.push(content);
        }
      } else if (name === "textarea" && skipDepth === 0 && !isHidden(rawAttrs)) {
        parts.push(" ");
        emitText(content);
        parts.push(" ");
      }
      continue;
    }
    open(name, rawAttrs, selfClosing);
  }
  // Unclosed elements end with the document.
  while (stack.length) close(stack.pop() as TOpen);

  const articleRange = regions.articles.length === 1 ? (regions.articles[0] ?? null) : null;
  const range = regions.main ?? regions.role ?? articleRange ?? [0, parts.length];
  out.text = parts.slice(range[0], range[1]).join("");
  for (const h of headings) if (h.at >= range[0] && h.at < range[1]) out.headings.push(h.text);
  return out;
}

import { CapabilityFailure } from "../envelope";
import { buildHtmlTree, getAttr, textOf } from "../web-scrape/html-tree";
import { plainText, truncateText } from "./feed-text";
import { resolveHttpUrl } from "./feed-url";
import type { TSniff } from "./sniff-feed";
import { localName } from "./sniff-feed";

/**
 * The refusal of a body that is not a feed, saying what it is instead ("… answered an HTML page (“Pricing”), not
 * an RSS, Atom or JSON feed."). INVALID_RESPONSE, as web.pdf refuses a body that is not a PDF: the address
 * answered, but not with what this source reads. A page that names its feed in a <link rel="alternate"> says so,
 * with the feed's address in the message and in `details.feedUrl`.
 */

const NOT_A_FEED = "not an RSS, Atom or JSON feed";

/** Elements an HTML page or fragment starts with, and no feed format uses as its root. */
const HTML_ROOTS = new Set(["html", "head", "body", "div", "p", "span", "meta", "link", "script", "title", "main"]);

const FEED_TYPES = new Set([
  "application/rss+xml",
  "application/atom+xml",
  "application/feed+json",
  "application/json",
  "application/rdf+xml",
]);

/** Only the start of a page is read for its title and feed links (both belong in its head). */
const MAX_HTML_SCAN_CHARS = 200_000;

export type TFound = "empty" | "html" | "xml" | "json" | "text" | "malformed";

export function notAFeed(url: string, what: string, found: TFound, extra: Record<string, unknown> = {}) {
  return new CapabilityFailure("INVALID_RESPONSE", `${url} answered ${what}, ${NOT_A_FEED}.`, false, {
    found,
    ...extra,
  });
}

/** A document with a feed's root element that cannot be read as that feed: `what` says why. */
export function unreadableFeed(url: string, what: string, found: TFound, format: string): CapabilityFailure {
  return new CapabilityFailure("INVALID_RESPONSE", `${url} answered ${what}, so its entries cannot be read.`, false, {
    found,
    format,
  });
}

/** The refusal for a body whose root (or first character) is no feed format's. */
export function describeNotAFeed(url: string, text: string, sniff: TSniff, json?: unknown): CapabilityFailure {
  switch (sniff.kind) {
    case "empty":
      return notAFeed(url, "with an empty body", "empty");
    case "text":
      return notAFeed(url, `plain text (“${snippet(text)}”)`, "text");
    case "json":
      return notAFeed(url, describeJson(json), "json");
    case "xml": {
      const root = localName(sniff.root);
      if (sniff.htmlDoctype || HTML_ROOTS.has(root) || /<(?:html|body)[\s>]/i.test(text.slice(0, MAX_HTML_SCAN_CHARS)))
        return describeHtml(url, text);
      return notAFeed(url, `an XML document whose root element is <${sniff.root}>`, "xml", { root: sniff.root });
    }
  }
}

function describeHtml(url: string, text: string): CapabilityFailure {
  const tree = buildHtmlTree(text.length > MAX_HTML_SCAN_CHARS ? text.slice(0, MAX_HTML_SCAN_CHARS) : text);
  let title = "";
  let feedUrl: string | null = null;
  for (const el of tree.elements) {
    if (!title && el.name === "title") title = truncateText(plainText(textOf(el, 1_000)), 80);
    if (feedUrl === null && el.name === "link") {
      const rel = (getAttr(el, "rel") ?? "").toLowerCase().split(/\s+/);
      const type = (getAttr(el, "type") ?? "").toLowerCase().split(";")[0]?.trim() ?? "";
      if (rel.includes("alternate") && FEED_TYPES.has(type)) feedUrl = resolveHttpUrl(getAttr(el, "href"), url);
    }
  }
  const page = title ? `an HTML page (“${title}”)` : "an HTML page";
  if (!feedUrl) return notAFeed(url, page, "html");
  return new CapabilityFailure(
    "INVALID_RESPONSE",
    `${url} answered ${page}, ${NOT_A_FEED}. The page names its feed: watch ${feedUrl} instead.`,
    false,
    { found: "html", feedUrl },
  );
}

function describeJson(json: unknown): string {
  if (json === undefined) return "text that starts like JSON but is not valid JSON";
  if (Array.isArray(json)) return `a JSON list of ${json.length} ${json.length === 1 ? "value" : "values"}`;
  if (json === null || typeof json !== "object") return "a single JSON value";
  const keys = Object.keys(json);
  if (keys.length === 0) return "an empty JSON object";
  const shown = keys
    .slice(0, 5)
    .map((k) => `“${truncateText(plainText(k), 40)}”`)
    .join(", ");
  // A JSON Feed says what it is: "version": "https://jsonfeed.org/version/1.1", with "title" and "items".
  return `JSON that is not a JSON Feed (its keys: ${shown}${keys.length > 5 ? ", …" : ""}; a JSON Feed has "version", "title" and "items")`;
}

function snippet(text: string): string {
  return truncateText(plainText(text.slice(0, 500)), 60);
}

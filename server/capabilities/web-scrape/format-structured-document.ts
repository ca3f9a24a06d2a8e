import { z } from "zod";
import { collapseWhitespace } from "../../lib/collapse-whitespace";
import { sanitizeForStorage } from "../../lib/sanitize-text";
import { cleanUrl } from "./clean-url";
import { detectPrices, ZDetectedPriceSchema } from "./detect-prices";
import type { THtmlTree } from "./html-tree";
import { parseLenientJson } from "./parse-lenient-json";
import { readOffers, ZAvailabilityInfoSchema, ZOfferSchema } from "./read-offers";
import { BLOCK_SEPARATOR, scanHtml } from "./scan-html";
import { dropVolatileKeys, VOLATILE_JSON_LD_KEYS } from "./volatile-keys";
import { isRecommendationHeading, withoutVolatileParts } from "./volatile-lines";

/**
 * The document format. Bump it whenever the same page would format differently; the hash carries it
 * (hash-structured-document.ts), so the refresh can tell a hash made under an older format and re-hash
 * that tracker once without recording a change (refresh-tracker.ts, pre-check).
 * 1: (unversioned) hand-written scanner. 2: htmlparser2 tree, offers + availability, session-free URLs.
 * 3: HTML main text without counters, relative times, ad slots and recommendation blocks (volatile-lines.ts);
 * availability from text only as a product's stock line (stock-line.ts).
 */
export const DOCUMENT_FORMAT_VERSION = 3;

/**
 * The stable structured document: what a page *says*, not how it was served. It is built only
 * from visible text and a few semantic tags, so attribute order, script nonces, CSRF tokens,
 * build ids, meta timestamps, comments and whitespace never reach it; URLs lose tracking and
 * cache-busting parameters; JSON loses request-scoped keys (see volatile-keys.ts).
 * This is what gets hashed for the hot loop's pre-check and what the fill step reads.
 */
export const ZStructuredDocumentSchema = z.object({
  formatVersion: z.number().int(),
  kind: z.enum(["html", "json", "text"]),
  title: z.string().nullable(),
  /** meta description / og:description — authored summary, stable across renders. */
  description: z.string().nullable(),
  /** `<link rel=canonical>` when the page has one, else the tracked URL — never a redirect target (sessions). */
  canonicalUrl: z.string(),
  /** h1–h3 of the main content, in document order. */
  headings: z.array(z.string()),
  /** Readable text of the main content; one line per block, whitespace collapsed. */
  mainText: z.string(),
  prices: z.array(ZDetectedPriceSchema),
  /** application/ld+json entities (@graph flattened, @context and volatile keys dropped). */
  jsonLd: z.array(z.record(z.string(), z.unknown())),
  /** Normalised offers from JSON-LD, microdata and OpenGraph (read-offers.ts). */
  offers: z.array(ZOfferSchema),
  /** The page's stated availability: the first offer that states one, else a visible stock phrase. */
  availability: ZAvailabilityInfoSchema.nullable(),
  /** JSON bodies only, volatile keys dropped. */
  json: z.unknown().optional(),
});
export type TStructuredDocument = z.infer<typeof ZStructuredDocumentSchema>;

export type TDocumentOptions = {
  /** The URL the tracker asked for; without a canonical link it is the page's identity (not finalUrl). */
  requestedUrl?: string;
  /** An already built tree of the same HTML (the page worker builds one for CSS extractors too). */
  tree?: THtmlTree;
};

export type TDocumentInput =
  | { kind: "html"; html: string }
  | { kind: "json"; json: unknown }
  | { kind: "text"; text: string };

const MAX_MAIN_TEXT = 500_000;
const MAX_JSON_LD = 50;

/**
 * One line per non-empty block, whitespace collapsed, capped. With `dropVolatile` (HTML), short lines lose
 * their counters, relative times and ad labels, and recommendation headings go (volatile-lines.ts).
 */
function toLines(text: string, separator: string, dropVolatile = false): string {
  const lines: string[] = [];
  let size = 0;
  for (const line of text.split(separator)) {
    let l = collapseWhitespace(line);
    if (dropVolatile && l) l = isRecommendationHeading(l) ? "" : withoutVolatileParts(l);
    if (!l) continue;
    lines.push(l);
    size += l.length + 1;
    if (size > MAX_MAIN_TEXT) break;
  }
  const out = lines.join("\n");
  return out.length > MAX_MAIN_TEXT ? out.slice(0, MAX_MAIN_TEXT) : out;
}

const graphOf = (obj: Record<string, unknown>): unknown => {
  for (const k of Object.keys(obj)) if (k.toLowerCase() === "@graph") return obj[k];
  return undefined;
};

function parseJsonLd(texts: string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const push = (v: unknown) => {
    if (out.length >= MAX_JSON_LD || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const item of v) push(item);
      return;
    }
    const obj = v as Record<string, unknown>;
    const graph = graphOf(obj);
    if (Array.isArray(graph)) {
      push(graph);
      return;
    }
    const { "@context": _context, ...rest } = obj;
    out.push(dropVolatileKeys(rest, { cleanUrls: true, extraKeys: VOLATILE_JSON_LD_KEYS }) as Record<string, unknown>);
  };
  // Comments, trailing commas, wrappers and raw newlines are common; a block that is still not JSON is skipped.
  for (const text of texts) push(parseLenientJson(text));
  return out;
}

/** Without a canonical link, the tracked URL (cleaned) is the identity: a redirect target may carry a session. */
function canonicalOf(link: string | null, finalUrl: string, requestedUrl: string | undefined): string {
  return (
    (link && cleanUrl(link, finalUrl)) ||
    (requestedUrl && cleanUrl(requestedUrl)) ||
    cleanUrl(finalUrl) ||
    requestedUrl ||
    finalUrl
  );
}

function formatHtml(html: string, finalUrl: string, options: TDocumentOptions): TStructuredDocument {
  const scan = scanHtml(options.tree ?? html);
  const mainText = toLines(scan.text, BLOCK_SEPARATOR, true);
  const jsonLd = parseJsonLd(scan.jsonLd);
  const section = readOffers({ jsonLd, microdata: scan.microdata, metaProperties: scan.metaProperties, mainText });
  return {
    formatVersion: DOCUMENT_FORMAT_VERSION,
    kind: "html",
    title: scan.title ?? scan.ogTitle ?? scan.headings[0] ?? null,
    description: scan.description,
    canonicalUrl: canonicalOf(scan.canonicalHref, finalUrl, options.requestedUrl),
    headings: scan.headings,
    mainText,
    prices: detectPrices(mainText),
    jsonLd,
    offers: section.offers,
    availability: section.availability,
  };
}

/**
 * Formats an HTML page (a bare string is treated as HTML), a JSON body or plain text into the
 * stable structured document. Linear in the input size; never throws on malformed content. Every
 * string in it is storable (no NUL, no lone surrogates: lib/sanitize-text.ts). Pages from the web
 * are formatted in the page worker (page-worker-pool.ts), off the event loop.
 */
export function formatStructuredDocument(
  input: string | TDocumentInput,
  finalUrl: string,
  options: TDocumentOptions = {},
): TStructuredDocument {
  return sanitizeForStorage(formatUnsanitized(input, finalUrl, options));
}

/**
 * The document of a body that was never sent (a 304 to the validators): empty, under the tracked URL as asked for.
 * Nothing reads it (the refresh keeps what it read last time: docs/refresh.md, "Conditional requests"); the envelope's
 * schema wants one, and building it costs nothing per refresh.
 */
export function notSentDocument(url: string): TStructuredDocument {
  return {
    formatVersion: DOCUMENT_FORMAT_VERSION,
    kind: "text",
    title: null,
    description: null,
    canonicalUrl: url,
    headings: [],
    mainText: "",
    prices: [],
    jsonLd: [],
    offers: [],
    availability: null,
  };
}

function formatUnsanitized(
  input: string | TDocumentInput,
  finalUrl: string,
  options: TDocumentOptions,
): TStructuredDocument {
  const doc: TDocumentInput = typeof input === "string" ? { kind: "html", html: input } : input;
  const canonicalUrl = canonicalOf(null, finalUrl, options.requestedUrl);
  if (doc.kind === "html") return formatHtml(doc.html, finalUrl, options);
  const empty = { offers: [], availability: null };
  if (doc.kind === "json") {
    return {
      formatVersion: DOCUMENT_FORMAT_VERSION,
      kind: "json",
      title: null,
      description: null,
      canonicalUrl,
      headings: [],
      mainText: "",
      prices: [],
      jsonLd: [],
      ...empty,
      json: dropVolatileKeys(doc.json),
    };
  }
  const mainText = toLines(doc.text.length > MAX_MAIN_TEXT * 2 ? doc.text.slice(0, MAX_MAIN_TEXT * 2) : doc.text, "\n");
  return {
    formatVersion: DOCUMENT_FORMAT_VERSION,
    kind: "text",
    title: null,
    description: null,
    canonicalUrl,
    headings: [],
    mainText,
    prices: detectPrices(mainText),
    jsonLd: [],
    ...empty,
  };
}

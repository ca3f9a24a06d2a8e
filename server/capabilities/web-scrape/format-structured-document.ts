import { z } from "zod";
import { cleanUrl } from "./clean-url";
import { detectPrices, ZDetectedPriceSchema } from "./detect-prices";
import { BLOCK_SEPARATOR, scanHtml } from "./scan-html";
import { dropVolatileKeys } from "./volatile-keys";

/**
 * The stable structured document: what a page *says*, not how it was served. It is built only
 * from visible text and a few semantic tags, so attribute order, script nonces, CSRF tokens,
 * build ids, meta timestamps, comments and whitespace never reach it; URLs lose tracking and
 * cache-busting parameters; JSON loses request-scoped keys (see volatile-keys.ts).
 * This is what gets hashed for the hot loop's pre-check and what the fill step reads.
 */
export const ZStructuredDocumentSchema = z.object({
  kind: z.enum(["html", "json", "text"]),
  title: z.string().nullable(),
  /** meta description / og:description — authored summary, stable across renders. */
  description: z.string().nullable(),
  canonicalUrl: z.string(),
  /** h1–h3 of the main content, in document order. */
  headings: z.array(z.string()),
  /** Readable text of the main content; one line per block, whitespace collapsed. */
  mainText: z.string(),
  prices: z.array(ZDetectedPriceSchema),
  /** application/ld+json entities (@graph flattened, @context and volatile keys dropped). */
  jsonLd: z.array(z.record(z.string(), z.unknown())),
  /** JSON bodies only, volatile keys dropped. */
  json: z.unknown().optional(),
});
export type TStructuredDocument = z.infer<typeof ZStructuredDocumentSchema>;

export type TDocumentInput =
  | { kind: "html"; html: string }
  | { kind: "json"; json: unknown }
  | { kind: "text"; text: string };

const MAX_MAIN_TEXT = 500_000;
const MAX_JSON_LD = 50;

const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/** One line per non-empty block, whitespace collapsed, capped. */
function toLines(text: string, separator: string): string {
  const lines: string[] = [];
  let size = 0;
  for (const line of text.split(separator)) {
    const l = collapse(line);
    if (!l) continue;
    lines.push(l);
    size += l.length + 1;
    if (size > MAX_MAIN_TEXT) break;
  }
  const out = lines.join("\n");
  return out.length > MAX_MAIN_TEXT ? out.slice(0, MAX_MAIN_TEXT) : out;
}

function parseJsonLd(texts: string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const push = (v: unknown) => {
    if (out.length >= MAX_JSON_LD || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const item of v) push(item);
      return;
    }
    const obj = v as Record<string, unknown>;
    if (Array.isArray(obj["@graph"])) {
      push(obj["@graph"]);
      return;
    }
    const { "@context": _context, ...rest } = obj;
    out.push(dropVolatileKeys(rest, { cleanUrls: true }) as Record<string, unknown>);
  };
  for (const text of texts) {
    try {
      // Some CMSs wrap JSON-LD in HTML comments or CDATA.
      push(JSON.parse(text.replace(/^\s*(?:<!--|\/\/<!\[CDATA\[)|(?:-->|\/\/\]\]>)\s*$/g, "")));
    } catch {
      // Malformed JSON-LD is common; skip it rather than fail the page.
    }
  }
  return out;
}

function formatHtml(html: string, finalUrl: string): TStructuredDocument {
  const scan = scanHtml(html);
  const mainText = toLines(scan.text, BLOCK_SEPARATOR);
  const canonicalUrl = (scan.canonicalHref && cleanUrl(scan.canonicalHref, finalUrl)) || cleanUrl(finalUrl) || finalUrl;
  return {
    kind: "html",
    title: scan.title ?? scan.ogTitle ?? scan.headings[0] ?? null,
    description: scan.description,
    canonicalUrl,
    headings: scan.headings,
    mainText,
    prices: detectPrices(mainText),
    jsonLd: parseJsonLd(scan.jsonLd),
  };
}

/**
 * Formats an HTML page (a bare string is treated as HTML), a JSON body or plain text into the
 * stable structured document. Linear in the input size; never throws on malformed content.
 */
export function formatStructuredDocument(input: string | TDocumentInput, finalUrl: string): TStructuredDocument {
  const doc: TDocumentInput = typeof input === "string" ? { kind: "html", html: input } : input;
  const canonicalUrl = cleanUrl(finalUrl) ?? finalUrl;
  if (doc.kind === "html") return formatHtml(doc.html, finalUrl);
  if (doc.kind === "json") {
    return {
      kind: "json",
      title: null,
      description: null,
      canonicalUrl,
      headings: [],
      mainText: "",
      prices: [],
      jsonLd: [],
      json: dropVolatileKeys(doc.json),
    };
  }
  const mainText = toLines(doc.text.length > MAX_MAIN_TEXT * 2 ? doc.text.slice(0, MAX_MAIN_TEXT * 2) : doc.text, "\n");
  return {
    kind: "text",
    title: null,
    description: null,
    canonicalUrl,
    headings: [],
    mainText,
    prices: detectPrices(mainText),
    jsonLd: [],
  };
}

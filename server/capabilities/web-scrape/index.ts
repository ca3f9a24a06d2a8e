import { z } from "zod";
import { sanitizeText } from "../../lib/sanitize-text";
import { CapabilityFailure, completed, failed } from "../envelope";
import type { TCapability, TCapabilityContext, TCapabilityEnvelope } from "../types";
import { recordUsage } from "../usage";
import { ZStructuredDocumentSchema } from "./format-structured-document";
import { readPageInWorker } from "./page-worker-pool";
import { safeFetch, type TFetchStats } from "./safe-fetch";

export const ZWebScrapeInputSchema = z.object({
  url: z
    .string()
    .trim()
    .min(1, "Enter the address of the page to watch.")
    .refine((v) => URL.canParse(v), "Enter a full web address, such as https://example.com/pricing.")
    .refine(
      (v) => !URL.canParse(v) || /^https?:$/.test(new URL(v).protocol),
      "Only http:// and https:// pages can be watched.",
    ),
});
export type TWebScrapeInput = z.infer<typeof ZWebScrapeInputSchema>;

export const ZWebScrapeOutputSchema = z.object({
  /** As requested. */
  url: z.string(),
  /** After redirects. */
  finalUrl: z.string(),
  fetchedAt: z.string(),
  status: z.number().int(),
  contentType: z.string(),
  /** The stable structured document; hash this (with the definition version), not the raw page. */
  document: ZStructuredDocumentSchema,
  /** Raw HTML (capped, storable characters only). Volatile; never part of the hash. */
  html: z.string().optional(),
  /** Parsed JSON body as served (volatile keys included) for JSON-pointer extractors. */
  json: z.unknown().optional(),
  /**
   * Answers to the caller's CSS queries (`ctx.cssQueries`), keyed by cssQueryKey, read from the same
   * parse as the document.
   */
  css: z
    .record(
      z.string(),
      z.union([
        z.object({ ok: z.literal(true), values: z.array(z.string().nullable()) }),
        z.object({ ok: z.literal(false), reason: z.enum(["no_match", "invalid_selector"]) }),
      ]),
    )
    .optional(),
});
export type TWebScrapeOutput = z.infer<typeof ZWebScrapeOutputSchema>;

type TBodyKind = "html" | "json" | "text";

/** HTML, XHTML, JSON (incl. +json types) and plain text; a missing type is sniffed from the body. */
export function bodyKindOf(mime: string): TBodyKind | undefined {
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime === "application/json" || mime === "text/json" || mime.endsWith("+json")) return "json";
  if (mime === "text/plain") return "text";
  return undefined;
}

function sniffKind(text: string): TBodyKind {
  const start = text.trimStart().slice(0, 1);
  if (start === "<") return "html";
  if (start === "{" || start === "[") return "json";
  return "text";
}

export const WEB_SCRAPE = "web.scrape";

async function scrape(input: TWebScrapeInput, ctx: TCapabilityContext): Promise<TCapabilityEnvelope<TWebScrapeOutput>> {
  const startedAt = new Date();
  const stats: TFetchStats = { requests: 0, bytes: 0 };
  let envelope: TCapabilityEnvelope<TWebScrapeOutput>;
  try {
    const res = await safeFetch(input.url, ctx.config.fetch, {
      signal: ctx.signal,
      stats,
      checkContentType: (mime) =>
        mime === "" || bodyKindOf(mime)
          ? undefined
          : `Refusing to read ${input.url}: not a web page (${mime}). web.scrape reads HTML, JSON and plain-text pages.`,
    });
    const kind = bodyKindOf(res.contentType) ?? sniffKind(res.text);
    // Parsing, the structured document and CSS queries run in a worker thread with a time and memory
    // budget (DESIGN §5); this thread only waits.
    const page = await readPageInWorker(
      {
        kind,
        body: res.text,
        finalUrl: res.finalUrl,
        requestedUrl: input.url,
        contentType: res.contentType,
        css: [...(ctx.cssQueries ?? [])],
      },
      ctx.config.fetch.page,
      ctx.signal,
    );
    if (!page.ok) throw new CapabilityFailure(page.code, page.message, true);
    const { document, json } = page;
    const output: TWebScrapeOutput = {
      url: input.url,
      finalUrl: res.finalUrl,
      fetchedAt: startedAt.toISOString(),
      status: res.status,
      contentType: res.contentType,
      document,
    };
    if (kind === "json") output.json = json;
    if (kind === "html") {
      const cap = ctx.config.fetch.htmlMaxChars;
      output.html = sanitizeText(res.text.length > cap ? res.text.slice(0, cap) : res.text);
      if (ctx.cssQueries?.length) output.css = page.css;
    }
    envelope = completed(output);
  } catch (err) {
    envelope =
      err instanceof CapabilityFailure
        ? err.toEnvelope()
        : failed(
            "INTERNAL",
            `Reading ${input.url} failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`,
          );
  }
  await recordUsage(ctx, WEB_SCRAPE, input, envelope, stats, startedAt);
  return envelope;
}

export const webScrape: TCapability<TWebScrapeInput, TWebScrapeOutput> = {
  name: WEB_SCRAPE,
  description:
    "Fetches a public web page (HTML, JSON or plain text) and formats it into a stable structured document: title, main text, headings, prices, JSON-LD entities, offers and availability, and canonical URL.",
  inputSchema: ZWebScrapeInputSchema,
  outputSchema: ZWebScrapeOutputSchema,
  execute: scrape,
};

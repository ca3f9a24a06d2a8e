import { z } from "zod";
import { isAppError } from "../../errors";
import { extractTextInWorker } from "../../lib/file-text/extract-in-worker";
import { extractionBudget } from "../../lib/file-text/extraction-budget";
import { hostOfUrl } from "../../lib/host-gate";
import { assertPublicUrl } from "../check-public-url";
import { CapabilityFailure, completed, failedFrom } from "../envelope";
import type { TCapability, TCapabilityContext, TCapabilityEnvelope } from "../types";
import { recordUsage } from "../usage";
import { ZWebScrapeInputSchema, ZWebScrapeOutputSchema } from "../web-scrape";
import { readPageInWorker } from "../web-scrape/page-worker-pool";
import { readWebResult } from "../web-scrape/read-back";
import { safeFetch, type TFetchStats } from "../web-scrape/safe-fetch";

/**
 * web.pdf — a PDF at a web address as a data source (docs/capabilities.md): a supplier's price list, a menu, terms of
 * service, a regulator's notice. Fetched with the same SSRF-safe fetch as pages; its text read page by page in the
 * file-text worker with the context files' time, heap and page budgets; then made into the same structured text
 * document a plain-text page becomes (prices detected, one line per text line). What is hashed is the text, so a PDF
 * generated again with a new creation date or producer, but the same words, is no change.
 */

export const WEB_PDF = "web.pdf";

/** Media types a PDF is served as; setup routes an address that answers one of them here. */
const PDF_TYPES = ["application/pdf", "application/x-pdf"] as const;
/** The document's main text is capped at this many characters (as a page's is). */
const PDF_MAX_TEXT_CHARS = 500_000;

export const ZWebPdfInputSchema = z.object({ url: ZWebScrapeInputSchema.shape.url });
export type TWebPdfInput = z.infer<typeof ZWebPdfInputSchema>;

export const ZWebPdfOutputSchema = ZWebScrapeOutputSchema.pick({
  url: true,
  finalUrl: true,
  fetchedAt: true,
  status: true,
  contentType: true,
  document: true,
  contentHash: true,
}).extend({
  /** Pages in the PDF. */
  pages: z.number().int(),
});
export type TWebPdfOutput = z.infer<typeof ZWebPdfOutputSchema>;

async function readPdf(input: TWebPdfInput, ctx: TCapabilityContext): Promise<TCapabilityEnvelope<TWebPdfOutput>> {
  const startedAt = new Date();
  const stats: TFetchStats = { requests: 0, bytes: 0 };
  const config = ctx.config.fetch;
  let envelope: TCapabilityEnvelope<TWebPdfOutput>;
  try {
    const body = await safeFetch(input.url, config, {
      signal: ctx.signal,
      stats,
      binary: true,
      accept: "application/pdf,*/*;q=0.1",
      // A server that says nothing, or "a download", may still send a PDF: its first bytes decide below.
      checkContentType: (mime) =>
        mime === "" || mime === "application/octet-stream" || (PDF_TYPES as readonly string[]).includes(mime)
          ? undefined
          : `Refusing to read ${input.url} as a PDF: it is ${mime}. web.pdf reads PDF documents; watch a web page with web.scrape.`,
    });
    const bytes = body.bytes ?? Buffer.alloc(0);
    if (bytes.subarray(0, 5).toString("latin1") !== "%PDF-")
      throw new CapabilityFailure("INVALID_RESPONSE", `${body.finalUrl} did not answer with a PDF document.`);
    const text = await pdfText(input.url, bytes);
    const page = await readPageInWorker(
      {
        kind: "text",
        body: text.text,
        finalUrl: body.finalUrl,
        requestedUrl: input.url,
        contentType: "text/plain",
        css: [],
        htmlMaxChars: config.htmlMaxChars,
        ...(ctx.hashSalt !== undefined ? { hashSalt: ctx.hashSalt } : {}),
      },
      config.page,
      ctx.signal,
    );
    if (!page.ok) throw new CapabilityFailure(page.code, page.message, true);
    envelope = completed({
      url: input.url,
      finalUrl: body.finalUrl,
      fetchedAt: startedAt.toISOString(),
      status: body.status,
      contentType: body.contentType || "application/pdf",
      document: page.document,
      ...(page.contentHash !== undefined ? { contentHash: page.contentHash } : {}),
      pages: text.units,
    });
  } catch (err) {
    envelope = failedFrom(err, input.url);
  }
  await recordUsage(ctx, WEB_PDF, input, envelope, stats, startedAt);
  return envelope;
}

/** The PDF's text, page by page, in the file-text worker; its refusals said as a source's, not an upload's. */
async function pdfText(url: string, bytes: Buffer) {
  try {
    return await extractTextInWorker({
      kind: "pdf",
      name: url,
      bytes: new Uint8Array(bytes),
      maxChars: PDF_MAX_TEXT_CHARS,
      budget: extractionBudget(),
    });
  } catch (error) {
    if (!isAppError(error)) throw error;
    const limit = (error.details as { limit?: unknown } | undefined)?.limit;
    // The upload advice ("split it", "save it as .txt") does not apply to a document someone else publishes.
    const message = error.message.replace(/\s(?:Split|Export|Save) .*$/s, "");
    if (limit === "timeoutMs" || limit === "memoryMb")
      throw new CapabilityFailure("PAGE_TOO_COMPLEX", `${message} The document is too large to watch.`, false);
    if (error.code === "PAYLOAD_TOO_LARGE") throw new CapabilityFailure("TOO_LARGE", message, false);
    throw new CapabilityFailure("INVALID_RESPONSE", message, false);
  }
}

export const webPdf: TCapability<TWebPdfInput, TWebPdfOutput> = {
  name: WEB_PDF,
  description:
    "Fetches a PDF document at a public web address and reads its text page by page into a stable structured text document: main text, one line per text line, and detected prices.",
  inputSchema: ZWebPdfInputSchema,
  outputSchema: ZWebPdfOutputSchema,
  execute: readPdf,
  noun: "PDF document",
  describeTarget: (input) => input.url,
  // Web addresses are spotted by web.scrape; one that answers a PDF is routed here by its media type.
  target: { arg: "url", describe: "The document's address, exactly as the person gave it" },
  contentTypes: PDF_TYPES,
  identity: "canonical_url",
  drafterHint:
    "web.pdf reads a PDF document at a web address (needs url; an address that answers a PDF is read this way): its text, one line per line — watch prices by their row's label with regex extractors on the text, and dates or named clauses by the words that introduce them.",
  watchLines: {
    description: "The document's lines of text, in order (its clauses, dates and figures)",
    guidance:
      "A changed clause, date, figure or named term is material; a line that only moved to another page, or a reflowed line with the same words, is noise.",
  },
  checkTarget: (input, config) => assertPublicUrl(input.url, config.fetch),
  hostOf: (input) => hostOfUrl(input.url),
  readBack: readWebResult,
};

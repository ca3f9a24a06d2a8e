import { z } from "zod";
import { type TListingPlan, ZListingItemSchema, ZListingPlanSchema } from "../../../contracts/definition/listing-plan";
import { hostOfUrl } from "../../lib/host-gate";
import { assertPublicUrl } from "../check-public-url";
import { CapabilityFailure, completed, failedFrom } from "../envelope";
import type { TCapability, TCapabilityContext, TCapabilityEnvelope } from "../types";
import { recordUsage } from "../usage";
import { notSentDocument, ZStructuredDocumentSchema } from "./format-structured-document";
import { hashStructuredDocument } from "./hash-structured-document";
import { followListingPages, LISTING_MAX_ITEMS, type TListingRead } from "./listing/follow-pages";
import type { TPageLimits } from "./page-limits";
import { readListingInWorker, readPageInWorker } from "./page-worker-pool";
import { findWebAddress, listingDocument, listingMembers, readWebResult } from "./read-back";
import { renderPage } from "./render-page";
import { safeFetch, type TFetchStats } from "./safe-fetch";

/**
 * Whether the page is rendered in a browser before it is read (docs/page-reading.md). `auto` fetches it plainly and
 * renders only when the fetched document looks like an empty app shell (looks-like-shell.ts).
 */
export const ZRenderModeSchema = z.enum(["auto", "never", "always"]);
export type TRenderMode = z.infer<typeof ZRenderModeSchema>;

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
  /** Additive with a default: inputs stored before it existed read as `auto`. */
  render: ZRenderModeSchema.default("auto"),
  /**
   * What `auto` decided for this tracker (true = the page needs the browser), remembered in the tracker's
   * stored input so later refreshes go straight to the right path: a remembered shell is rendered without the
   * plain fetch first, a remembered plain page never starts a browser. Written by code (the setup sample, the
   * first refresh that decides), never by people; ignored unless render is `auto`.
   */
  autoRender: z.boolean().optional(),
  listing: ZListingPlanSchema.optional().describe(
    "A listing page watched as a set (docs/sets.md): the locked plan that says where its items are, how each is identified and which values each has; pages followed up to maxPages",
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
  /**
   * hashStructuredDocument(document, ctx.hashSalt) when the caller passed a salt: computed in the page worker
   * beside the document, so the refresh's pre-check costs the server's thread nothing.
   */
  contentHash: z.string().optional(),
  /** Raw HTML (capped, storable characters only). Volatile; never part of the hash. */
  html: z.string().optional(),
  /**
   * `html` left out: `contentHash` is one of ctx.knownContentHashes, so the caller already holds this content (an
   * unchanged refresh stores nothing of the page).
   */
  htmlOmitted: z.literal(true).optional(),
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
  /** How the page was read: rendered in a browser or fetched plainly; what `auto` decided and why. */
  render: z
    .object({
      rendered: z.boolean(),
      /** Browser wall time of the render (ms). */
      ms: z.number().optional(),
      /** Requests the browser guards refused (private addresses, media, trackers). */
      blockedRequests: z.number().int().optional(),
      /** `auto` only: the decision to remember for this tracker. */
      autoRender: z.boolean().optional(),
      reason: z.string().optional(),
    })
    .optional(),
  /**
   * Input `listing` only: the items its plan read, merged over the pages followed (each key once, in page order);
   * `truncated` when a next page or items were left unread (maxPages, the item cap). The read-back hashes these,
   * not `document`, and `contentHash` is of them (read-back.ts).
   */
  listing: z.object({ items: z.array(ZListingItemSchema), pages: z.number().int(), truncated: z.boolean() }).optional(),
  /**
   * The cache validators of a plainly fetched page (not rendered, not a listing), for the next refresh's conditional
   * request (ctx.conditional); absent when the page was rendered or is a listing.
   */
  validators: z.object({ etag: z.string().nullable(), lastModified: z.string().nullable() }).optional(),
  /**
   * The server answered 304 to ctx.conditional: nothing was downloaded or read, `document` is empty and must not be
   * hashed — the caller's last read stands (docs/refresh.md, "Conditional requests").
   */
  notModified: z.literal(true).optional(),
});
export type TWebScrapeOutput = z.infer<typeof ZWebScrapeOutputSchema>;

type TBodyKind = "html" | "json" | "text";

/** HTML, XHTML, JSON (incl. +json types) and plain text; a missing type is sniffed from the body. */
export function bodyKindOf(mime: string): TBodyKind | undefined {
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  // A JSON Feed is a feed (feed.items reads it as a set, docs/sets.md), not a JSON body to read as one document.
  if (mime === "application/feed+json") return undefined;
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

type TBody = {
  text: string;
  finalUrl: string;
  status: number;
  contentType: string;
  validators?: { etag: string | null; lastModified: string | null };
};

async function scrape(input: TWebScrapeInput, ctx: TCapabilityContext): Promise<TCapabilityEnvelope<TWebScrapeOutput>> {
  const startedAt = new Date();
  const stats: TFetchStats = { requests: 0, bytes: 0 };
  let envelope: TCapabilityEnvelope<TWebScrapeOutput>;
  const config = ctx.config.fetch;
  const mode = input.render ?? "auto";
  const render = async (url = input.url): Promise<{ body: TBody; ms: number; blocked: number }> => {
    const selector = ctx.cssQueries?.find((q) => q.selector)?.selector;
    const page = await renderPage(url, config, {
      stats,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(selector ? { waitForSelector: selector } : {}),
    });
    return {
      body: { text: page.html, finalUrl: page.finalUrl, status: page.status, contentType: page.contentType },
      ms: page.ms,
      blocked: page.blocked.length,
    };
  };
  // Validators go only on the tracked page's own plain fetch: a listing's first page says nothing of its next pages,
  // and a rendered page is the browser's (docs/refresh.md, "Conditional requests").
  const conditional = input.listing ? undefined : ctx.conditional;
  const fetchPlain = (url: string, validators?: typeof conditional): Promise<TBody> =>
    safeFetch(url, config, {
      signal: ctx.signal,
      stats,
      ...(validators ? { ifNoneMatch: validators.etag, ifModifiedSince: validators.lastModified } : {}),
      checkContentType: (mime) =>
        mime === "" || bodyKindOf(mime)
          ? undefined
          : `Refusing to read ${url}: not a web page (${mime}). web.scrape reads HTML, JSON and plain-text pages.`,
    }).then((r) => ({ ...r, validators: { etag: r.etag, lastModified: r.lastModified } }));
  try {
    let body: TBody;
    let rendered: TWebScrapeOutput["render"];
    // Straight to the browser: asked for, or `auto` remembered that this tracker's page is a shell (and a
    // browser is configured — without one, `auto` reads what a fetch sees).
    if (mode === "always" || (mode === "auto" && input.autoRender === true && config.browser)) {
      const r = await render();
      body = r.body;
      rendered = {
        rendered: true,
        ms: r.ms,
        blockedRequests: r.blocked,
        ...(mode === "auto" ? { autoRender: true } : {}),
      };
    } else {
      body = await fetchPlain(input.url, conditional);
      rendered = { rendered: false };
      if (body.status === 304) {
        // Not modified: nothing downloaded, nothing parsed; the caller keeps what it read last time.
        envelope = completed({
          url: input.url,
          finalUrl: body.finalUrl,
          fetchedAt: startedAt.toISOString(),
          status: 304,
          contentType: "",
          document: notSentDocument(input.url),
          render: rendered,
          notModified: true,
          // A 304 may name the body anew (RFC 9110 §15.4.5: it carries the ETag a 200 would): kept for next time.
          ...(body.validators?.etag || body.validators?.lastModified ? { validators: body.validators } : {}),
        });
        await recordUsage(ctx, WEB_SCRAPE, input, envelope, stats, startedAt);
        return envelope;
      }
    }
    let kind = bodyKindOf(body.contentType) ?? sniffKind(body.text);
    const read = (b: TBody, k: TBodyKind, shellCheck: boolean) =>
      readPageInWorker(
        {
          kind: k,
          body: b.text,
          finalUrl: b.finalUrl,
          requestedUrl: input.url,
          contentType: b.contentType,
          css: [...(ctx.cssQueries ?? [])],
          htmlMaxChars: config.htmlMaxChars,
          // A listing's hash is its set's, made below; the page's would be wasted work.
          ...(ctx.hashSalt !== undefined && !input.listing ? { hashSalt: ctx.hashSalt } : {}),
          ...(ctx.hashSalt !== undefined && !input.listing && ctx.knownContentHashes?.length
            ? { knownHashes: ctx.knownContentHashes }
            : {}),
          ...(shellCheck ? { shellCheck } : {}),
        },
        config.page,
        ctx.signal,
      );
    // Parsing, the structured document, CSS queries, the content hash, the shell check and the storable HTML run
    // in a worker thread with a time and memory budget (docs/design.md §5); this thread only waits.
    let page = await read(body, kind, mode === "auto" && !rendered.rendered);
    if (!page.ok) throw new CapabilityFailure(page.code, page.message, true);
    if (mode === "auto" && !rendered.rendered) {
      const verdict = page.shell ?? { shell: false, reasons: [] };
      if (verdict.shell && config.browser) {
        const r = await render();
        body = r.body;
        kind = "html";
        page = await read(body, kind, false);
        if (!page.ok) throw new CapabilityFailure(page.code, page.message, true);
        rendered = {
          rendered: true,
          ms: r.ms,
          blockedRequests: r.blocked,
          autoRender: true,
          reason: `looked like an app shell: ${verdict.reasons.join(", ")}`,
        };
      } else if (verdict.shell) {
        rendered = { rendered: false, reason: "looked like an app shell, but no browser is configured" };
      } else {
        rendered = { rendered: false, autoRender: false };
      }
    }
    const { document, json } = page;
    const output: TWebScrapeOutput = {
      url: input.url,
      finalUrl: body.finalUrl,
      fetchedAt: startedAt.toISOString(),
      status: body.status,
      contentType: body.contentType,
      document,
      render: rendered,
    };
    if (page.contentHash !== undefined) output.contentHash = page.contentHash;
    if (!rendered.rendered && !input.listing && body.validators) output.validators = body.validators;
    if (kind === "json") output.json = json;
    if (kind === "html") {
      if (page.htmlOmitted) output.htmlOmitted = true;
      else output.html = page.html ?? "";
      if (ctx.cssQueries?.length) output.css = page.css;
    }
    if (input.listing) {
      if (kind !== "html")
        throw new CapabilityFailure(
          "UNSUPPORTED_CONTENT_TYPE",
          `${input.url} is watched as a listing page, but it answered ${body.contentType || "a body"} that is not HTML, so its items cannot be read.`,
        );
      // Next pages go the way the first went: rendered when it was, else the same safe fetch (docs/page-reading.md).
      const pageRender = rendered.rendered;
      output.listing = await readListingPages(
        input.url,
        input.listing,
        body,
        async (url) => (pageRender ? (await render(url)).body : await fetchPlain(url)),
        config.page,
        ctx.signal,
      );
      // The pre-check's hash is the set's (docs/sets.md), over the document the read-back hashes: never the page's.
      if (ctx.hashSalt !== undefined)
        output.contentHash = hashStructuredDocument(
          listingDocument(listingMembers(output.listing.items)),
          ctx.hashSalt,
        );
    }
    envelope = completed(output);
  } catch (err) {
    envelope = failedFrom(err, input.url);
  }
  await recordUsage(ctx, WEB_SCRAPE, input, envelope, stats, startedAt);
  return envelope;
}

/**
 * A listing's items on its first page and on each next page its plan follows (listing/follow-pages.ts), every page
 * read in the page worker (docs/page-reading.md).
 */
async function readListingPages(
  requestedUrl: string,
  plan: TListingPlan,
  first: TBody,
  fetchNext: (url: string) => Promise<TBody>,
  limits: TPageLimits,
  signal: AbortSignal | undefined,
): Promise<TListingRead> {
  // One over the cap, so a page that lists more than the cap is known to be cut (follow-pages.ts marks it truncated).
  const read = (b: TBody) =>
    readListingInWorker(b.text, b.finalUrl, plan, limits, {
      maxItems: LISTING_MAX_ITEMS + 1,
      ...(signal ? { signal } : {}),
    });
  const start = await read(first);
  return followListingPages({ requestedUrl, finalUrl: first.finalUrl, ...start }, plan, async (url) => {
    const next = await fetchNext(url);
    return { finalUrl: next.finalUrl, ...(await read(next)) };
  });
}

export const webScrape: TCapability<TWebScrapeInput, TWebScrapeOutput> = {
  name: WEB_SCRAPE,
  description:
    "Fetches a public web page (HTML, JSON or plain text; rendered in a browser when it needs JavaScript) and formats it into a stable structured document: title, main text, headings, prices, JSON-LD entities, offers and availability, and canonical URL.",
  inputSchema: ZWebScrapeInputSchema,
  outputSchema: ZWebScrapeOutputSchema,
  execute: scrape,
  noun: "web page",
  describeTarget: (input) => input.url,
  target: { arg: "url", describe: "The page address, exactly as the person gave it", find: findWebAddress },
  identity: "canonical_url",
  drafterHint:
    "web.scrape reads a web page or JSON endpoint (needs url): its title, main text, prices, offers, availability and JSON-LD; CSS selectors read the HTML.",
  checkTarget: (input, config) => assertPublicUrl(input.url, config.fetch),
  hostOf: (input) => hostOfUrl(input.url),
  readBack: readWebResult,
  pageView: true,
};

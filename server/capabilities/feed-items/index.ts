import { z } from "zod";
import { ZFeedParseSchema } from "@/contracts/feed-entry";
import { hostOfUrl } from "../../lib/host-gate";
import { assertPublicUrl } from "../check-public-url";
import { completed, failedFrom } from "../envelope";
import type { TCapability, TCapabilityContext, TCapabilityEnvelope, TSetDraft } from "../types";
import { recordUsage } from "../usage";
import { ZWebScrapeInputSchema, ZWebScrapeOutputSchema } from "../web-scrape";
import { parseFeedInWorker } from "../web-scrape/page-worker-pool";
import { safeFetch, type TFetchStats } from "../web-scrape/safe-fetch";
import { readFeedResult } from "./read-back";

/**
 * feed.items — an RSS, Atom or JSON Feed at a web address watched as a set of entries (docs/sets.md): a changelog,
 * press releases, a status page, job openings. Fetched with the same SSRF-safe fetch as pages; the body parsed in the
 * page worker (parse-feed.ts), each entry keyed by its id, else its link, never its position. What is hashed is the
 * entries sorted by key, so a feed that reorders itself is no change.
 */

export const FEED_ITEMS = "feed.items";

/** At most this many entries are read, the first in feed order (a set keeps at most its maxEntities of them). */
const FEED_MAX_ENTRIES = 500;

/**
 * The feed media types setup routes here from web.scrape. `application/xml` and `text/xml` belong too: many feeds are
 * served so, and web.scrape refuses XML as not a web page (its bodyKindOf reads HTML, JSON and text only), so without
 * them such a feed could not be watched at all. An XML document that is no feed (a sitemap) is refused here in words.
 * `application/feed+json` is listed but web.scrape reads every +json body itself, so that routing never fires.
 */
const FEED_TYPES = [
  "application/rss+xml",
  "application/atom+xml",
  "application/feed+json",
  "application/rdf+xml",
  "application/xml",
  "text/xml",
] as const;

const ACCEPT =
  "application/rss+xml,application/atom+xml,application/feed+json,application/rdf+xml;q=0.9,application/xml;q=0.8,text/xml;q=0.8,application/json;q=0.7,*/*;q=0.1";

/**
 * Read: feed and XML types, JSON and any text — servers label feeds loosely, and the body's root decides what it is.
 * HTML is read too, so the refusal can name the feed a page links to (not-a-feed.ts).
 */
function readable(mime: string): boolean {
  return (
    mime === "" ||
    (FEED_TYPES as readonly string[]).includes(mime) ||
    mime.endsWith("+xml") ||
    mime.endsWith("+json") ||
    mime === "application/json" ||
    mime.startsWith("text/")
  );
}

export const ZFeedItemsInputSchema = z
  .object({ url: ZWebScrapeInputSchema.shape.url.describe("The feed's address (http or https)") })
  .describe("An RSS, Atom or JSON Feed to watch as a set of entries");
export type TFeedItemsInput = z.infer<typeof ZFeedItemsInputSchema>;

export const ZFeedItemsOutputSchema = ZWebScrapeOutputSchema.pick({
  url: true,
  finalUrl: true,
  fetchedAt: true,
  status: true,
  contentType: true,
})
  .extend(ZFeedParseSchema.shape)
  .describe("The feed as read: its format, title and site, and its entries in feed order");
export type TFeedItemsOutput = z.infer<typeof ZFeedItemsOutputSchema>;

async function readFeed(
  input: TFeedItemsInput,
  ctx: TCapabilityContext,
): Promise<TCapabilityEnvelope<TFeedItemsOutput>> {
  const startedAt = new Date();
  const stats: TFetchStats = { requests: 0, bytes: 0 };
  const config = ctx.config.fetch;
  let envelope: TCapabilityEnvelope<TFeedItemsOutput>;
  try {
    const body = await safeFetch(input.url, config, {
      signal: ctx.signal,
      stats,
      accept: ACCEPT,
      checkContentType: (mime) =>
        readable(mime)
          ? undefined
          : `Refusing to read ${input.url} as a feed: it is ${mime}. feed.items reads RSS, Atom and JSON feeds.`,
    });
    // Untrusted text is parsed under the page budget (docs/architecture.md); what is no feed is refused there in words.
    const feed = await parseFeedInWorker(body.text, body.finalUrl, FEED_MAX_ENTRIES, config.page);
    envelope = completed({
      url: input.url,
      finalUrl: body.finalUrl,
      fetchedAt: startedAt.toISOString(),
      status: body.status,
      contentType: body.contentType,
      ...feed,
    });
  } catch (err) {
    envelope = failedFrom(err, input.url);
  }
  await recordUsage(ctx, FEED_ITEMS, input, envelope, stats, startedAt);
  return envelope;
}

/**
 * A feed drafted in rules mode (docs/sets.md): a new or removed entry is material by the set's rules; an edited one
 * is for the judge (notable while AI is off). Its link and dates alone moving are noise: the key names the entry, and
 * publishers touch `updated` without saying anything new.
 */
const FEED_SET_DRAFT: TSetDraft = {
  member: { one: "entry", many: "entries" },
  fields: [
    {
      value: "title",
      type: "string",
      description: "The entry's title",
      rule: {
        kind: "ask_agent",
        guidance:
          "A new title that says something new (a version, a date, a figure, a status) is material; a typo fix or rewording is noise.",
      },
    },
    { value: "link", type: "string", description: "The entry's address", rule: { kind: "ignore" } },
    {
      value: "summary",
      type: "string",
      description: "The entry's text (its summary, else its content), plain",
      rule: {
        kind: "ask_agent",
        guidance:
          "New facts in the entry's text (a date, a figure, a status, an item added or removed) are material; rewording is noise.",
      },
    },
    {
      value: "updated",
      type: "string",
      description: "When the feed says the entry last changed (ISO 8601, UTC)",
      rule: { kind: "ignore" },
    },
  ],
};

export const feedItems: TCapability<TFeedItemsInput, TFeedItemsOutput> = {
  name: FEED_ITEMS,
  description:
    "Fetches an RSS, Atom or JSON Feed at a public web address and reads its entries as a set, each keyed by its id or link: title, link, dates, plain-text summary, author and categories.",
  inputSchema: ZFeedItemsInputSchema,
  outputSchema: ZFeedItemsOutputSchema,
  execute: readFeed,
  noun: "feed",
  describeTarget: (input) => input.url,
  // Web addresses are spotted by web.scrape; one that answers a feed's media type is routed here by `contentTypes`.
  target: { arg: "url", describe: "The feed's address, exactly as the person gave it" },
  contentTypes: FEED_TYPES,
  identity: "canonical_url",
  drafterHint:
    "feed.items watches an RSS, Atom or JSON Feed as a set of entries (needs url; an address that answers a feed is read this way): changelogs, press releases, status pages, job openings — a new or removed entry is the news; each entry has title, link, published, updated, summary, author and categories.",
  draftSet: FEED_SET_DRAFT,
  checkTarget: (input, config) => assertPublicUrl(input.url, config.fetch),
  hostOf: (input) => hostOfUrl(input.url),
  readBack: readFeedResult,
};

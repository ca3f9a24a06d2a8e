import {
  DetectError,
  detectJsonFeed,
  MalformedError,
  ParseError,
  parseAtomFeed,
  parseJsonFeed,
  parseRdfFeed,
  parseRssFeed,
} from "feedsmith";
import { FEED_ENTRY_LIMITS, type TFeedEntry, type TFeedFormat, type TFeedParse } from "@/contracts/feed-entry";
import { sanitizeText } from "@/server/lib/sanitize-text";
import { parseFeedDate } from "./feed-date";
import { feedEntryKey } from "./feed-entry-key";
import { fromAtom, fromJson, fromRdf, fromRss, type TRawEntry, type TRawFeed, type TRawText } from "./feed-formats";
import { htmlToText, plainText, truncateText } from "./feed-text";
import { describeNotAFeed, unreadableFeed } from "./not-a-feed";
import { localName, sniffFeed } from "./sniff-feed";

export type { TFeedEntry, TFeedParse } from "@/contracts/feed-entry";

/** The root elements of the XML feed formats, by local name (`rdf:RDF` → `rdf`). */
const XML_FORMATS: Record<string, Exclude<TFeedFormat, "json">> = { rss: "rss", feed: "atom", rdf: "rdf" };

const FORMAT_NAMES: Record<TFeedFormat, string> = {
  rss: "an RSS feed",
  atom: "an Atom feed",
  json: "a JSON Feed",
  rdf: "an RSS 1.0 (RDF) feed",
};

/**
 * Reads an RSS 2.0, RSS 1.0 (RDF), Atom 1.0 or JSON Feed 1.x document as a set of entries, each with a key that is
 * the same on every read (feed-entry-key.ts). `url` is the feed's address: relative links are resolved against it
 * and messages name it. At most `maxEntries` entries are read, the first in feed order; `truncated` says the feed
 * listed more. A body that is no feed throws a CapabilityFailure (INVALID_RESPONSE) that says what it is instead.
 *
 * The text is untrusted and already capped by the fetch: parsing is linear in it, at most maxEntries + 1 entries
 * are mapped, and every field is cut to FEED_ENTRY_LIMITS. The caller runs this where a parse may take its time
 * (docs/architecture.md: untrusted bodies are parsed in a worker).
 */
export function parseFeed(text: string, opts: { url: string; maxEntries: number }): TFeedParse {
  const maxEntries = Math.max(0, Math.floor(opts.maxEntries));
  const parsed = readFeed(text, opts.url, maxEntries + 1);
  const raw = parsed.feed?.entries ?? [];
  const entries: TFeedEntry[] = [];
  const seen = new Set<string>();
  for (const rawEntry of raw.slice(0, maxEntries)) {
    const entry = toEntry(rawEntry);
    // A feed that lists one key twice (a republished item, a buggy generator) keeps its first — the newest in
    // the usual newest-first order; the later ones are dropped, so a key names exactly one entry.
    if (seen.has(entry.key)) continue;
    seen.add(entry.key);
    entries.push(entry);
  }
  return {
    format: parsed.format,
    title: parsed.feed ? truncateText(textOf(parsed.feed.title), FEED_ENTRY_LIMITS.titleChars) : "",
    homeUrl: parsed.feed?.homeUrl ?? null,
    entries,
    truncated: raw.length > maxEntries,
  };
}

/** The document's format and its entries mapped to one shape; null `feed` for a feed with nothing in it. */
function readFeed(text: string, url: string, maxItems: number): { format: TFeedFormat; feed: TRawFeed | null } {
  const sniff = sniffFeed(text);
  if (sniff.kind === "json") {
    let json: unknown;
    try {
      json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch {
      throw describeNotAFeed(url, text, sniff);
    }
    if (!detectJsonFeed(json)) throw describeNotAFeed(url, text, sniff, json);
    return { format: "json", feed: attempt("json", url, "", () => fromJson(parseJsonFeed(json, { maxItems }), url)) };
  }
  const format = sniff.kind === "xml" ? XML_FORMATS[localName(sniff.root)] : undefined;
  if (sniff.kind !== "xml" || format === undefined || sniff.htmlDoctype) throw describeNotAFeed(url, text, sniff);
  const read = {
    rss: () => fromRss(parseRssFeed(text, { maxItems }), url),
    atom: () => fromAtom(parseAtomFeed(text, { maxItems }), url),
    rdf: () => fromRdf(parseRdfFeed(text, { maxItems }), url),
  }[format];
  return { format, feed: attempt(format, url, sniff.root, read) };
}

/** feedsmith's errors in words: nothing to read is an empty feed; anything else is refused, naming the format. */
function attempt(format: TFeedFormat, url: string, root: string, read: () => TRawFeed): TRawFeed | null {
  try {
    return read();
  } catch (error) {
    // ParseError: the document is the format's but holds nothing (an empty <channel/>): a feed with no entries.
    if (error instanceof ParseError) return null;
    if (error instanceof MalformedError) {
      const cause = error.cause instanceof Error ? ` (${truncateText(plainText(error.cause.message), 200)})` : "";
      throw unreadableFeed(url, `${FORMAT_NAMES[format]} that is not well-formed XML${cause}`, "malformed", format);
    }
    // DetectError: the root is the format's (<feed>, <rss>) but nothing in it is (no namespace, no known element).
    if (error instanceof DetectError)
      throw unreadableFeed(
        url,
        `an XML document with a <${root}> root element but nothing of ${FORMAT_NAMES[format]} in it`,
        "xml",
        format,
      );
    throw error;
  }
}

function toEntry(raw: TRawEntry): TFeedEntry {
  const title = truncateText(textOf(raw.title), FEED_ENTRY_LIMITS.titleChars);
  const summary = truncateText(textOf(raw.summary), FEED_ENTRY_LIMITS.summaryChars);
  const published = parseFeedDate(raw.published);
  const link = raw.link;
  const author = truncateText(plainText(raw.author), FEED_ENTRY_LIMITS.authorChars);
  return {
    ...feedEntryKey({ id: raw.id ? sanitizeText(raw.id) : null, link, title, published, summary }),
    title,
    link,
    published,
    updated: parseFeedDate(raw.updated),
    summary,
    categories: categoriesOf(raw.categories),
    author: author || null,
  };
}

function textOf(text: TRawText): string {
  return text.html ? htmlToText(text.value) : plainText(text.value);
}

/** Trimmed, without repeats (ignoring case), at most FEED_ENTRY_LIMITS.categories of them. */
function categoriesOf(raw: (string | undefined)[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const value of raw) {
    if (out.length >= FEED_ENTRY_LIMITS.categories) break;
    const name = truncateText(plainText(value), FEED_ENTRY_LIMITS.categoryChars);
    const folded = name.toLowerCase();
    if (!name || seen.has(folded)) continue;
    seen.add(folded);
    out.push(name);
  }
  return out;
}

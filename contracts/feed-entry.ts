import { z } from "zod";

/**
 * One entry of a watched feed (RSS 2.0, RSS 1.0/RDF, Atom 1.0, JSON Feed 1.1) and the feed as read, for a tracker
 * that watches a feed as a set of entries. Client-safe: zod and constants only. The server's parser
 * (server/capabilities/feed-items/parse-feed.ts) produces exactly these.
 */

/** Caps on what one entry may hold: feeds are untrusted, and every field ends up stored and shown. */
export const FEED_ENTRY_LIMITS = {
  titleChars: 500,
  summaryChars: 1_000,
  authorChars: 200,
  categoryChars: 100,
  categories: 20,
  linkChars: 2_048,
  /** A longer id or link is replaced by its sha256 (`sha256:…`), so the key stays short and still unique. */
  keyChars: 512,
} as const;

export const ZFeedFormatSchema = z
  .enum(["rss", "atom", "json", "rdf"])
  .describe("rss: RSS 2.0 (and 0.9x); atom: Atom 1.0; json: JSON Feed 1.x; rdf: RSS 1.0 (RDF)");
export type TFeedFormat = z.infer<typeof ZFeedFormatSchema>;

export const ZFeedEntryKeyKindSchema = z
  .enum(["id", "link", "content"])
  .describe(
    "Where the key came from: id (Atom id, RSS guid, JSON Feed id, RDF rdf:about), link (no id; the entry's absolute link), content (neither; a hash of its title and publication date)",
  );
export type TFeedEntryKeyKind = z.infer<typeof ZFeedEntryKeyKindSchema>;

export const ZFeedEntrySchema = z.object({
  key: z
    .string()
    .min(1)
    .max(FEED_ENTRY_LIMITS.keyChars)
    .describe("The entry's identity within its feed, the same on every read whatever the entry's position"),
  keyKind: ZFeedEntryKeyKindSchema,
  title: z.string().max(FEED_ENTRY_LIMITS.titleChars).describe("Plain text; empty when the entry has none"),
  link: z
    .string()
    .max(FEED_ENTRY_LIMITS.linkChars)
    .nullable()
    .describe("Absolute http(s) address of the entry, resolved against the feed's address; null when it has none"),
  published: z.iso
    .datetime()
    .nullable()
    .describe("When the entry was first published, ISO 8601 UTC; null when absent or unreadable"),
  updated: z.iso
    .datetime()
    .nullable()
    .describe("When the entry was last changed, ISO 8601 UTC; null when absent or unreadable"),
  summary: z
    .string()
    .max(FEED_ENTRY_LIMITS.summaryChars)
    .describe("Plain text of the summary (else the content): no tags or entities, whitespace collapsed, cut at a word"),
  categories: z
    .array(z.string().max(FEED_ENTRY_LIMITS.categoryChars))
    .max(FEED_ENTRY_LIMITS.categories)
    .describe("Categories or tags as the feed names them, without repeats"),
  author: z.string().max(FEED_ENTRY_LIMITS.authorChars).nullable().describe("The first author's name (or address)"),
});
export type TFeedEntry = z.infer<typeof ZFeedEntrySchema>;

export const ZFeedParseSchema = z.object({
  format: ZFeedFormatSchema,
  title: z.string().max(FEED_ENTRY_LIMITS.titleChars).describe("The feed's own title, plain text"),
  homeUrl: z
    .string()
    .max(FEED_ENTRY_LIMITS.linkChars)
    .nullable()
    .describe("The site the feed belongs to (absolute http(s)), when it names one"),
  entries: z.array(ZFeedEntrySchema).describe("The entries in feed order, each key once"),
  truncated: z.boolean().describe("True when the feed listed more entries than were read"),
});
export type TFeedParse = z.infer<typeof ZFeedParseSchema>;

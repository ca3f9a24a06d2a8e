import type { TFeedEntry } from "@/contracts/feed-entry";
import type { TReadBack, TSetMember } from "../types";

/** What a feed read leaves (feed.items' output), as stored: any part may be missing (a sample, an old capture). */
type TFeedResultLike = { url?: string; title?: string; homeUrl?: string | null; entries?: TFeedEntry[] };

/**
 * A feed read back as a set (docs/sets.md): the document holds the entries sorted by key, so its hash is the whole
 * set's whatever the feed's order (a newest-first feed reorders itself every time); `items` keeps the feed's order,
 * one member per entry, its values what the definition's pointers read (`/title`, `/summary`).
 */
export function readFeedResult(input: { url?: string } | undefined, results: TFeedResultLike | undefined): TReadBack {
  const r = results ?? {};
  const entries = Array.isArray(r.entries) ? r.entries : [];
  const document = { title: r.title ?? "", homeUrl: r.homeUrl ?? null, entries: sortByKey(entries) };
  const url = input?.url ?? r.url ?? "";
  return {
    document,
    raw: { json: document },
    source: `feed ${url}`.trim(),
    ids: url ? { url } : {},
    items: entries.map(feedMember),
  };
}

/** One entry as a set member: its key and its values, a missing one null (never "" — absent is not empty text). */
export function feedMember(entry: TFeedEntry): TSetMember {
  return {
    key: entry.key,
    values: {
      title: entry.title || null,
      link: entry.link,
      published: entry.published,
      updated: entry.updated,
      summary: entry.summary || null,
      author: entry.author,
      categories: entry.categories.length ? entry.categories.join(", ") : null,
    },
  };
}

/**
 * A set's members in the order its document holds them (docs/sets.md): by key, by code unit rather than locale, so
 * the order — and the hash — is the same on every server whatever order the source listed them in.
 */
export function sortByKey<T extends { key: string }>(members: readonly T[]): T[] {
  return [...members].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

import { createHash } from "node:crypto";
import { FEED_ENTRY_LIMITS, type TFeedEntryKeyKind } from "@/contracts/feed-entry";

export type TFeedEntryKey = { key: string; keyKind: TFeedEntryKeyKind };

/**
 * The identity of an entry within its feed: what the feed calls it (Atom id, RSS guid, JSON Feed id — a guid that
 * is a URL is still an id), else its absolute link, else a hash of its title and publication date. Never its
 * position: a feed lists its newest first, so positions shift with every new entry and an edit would look like a
 * removal and an addition.
 */
export function feedEntryKey(entry: {
  id: string | null;
  link: string | null;
  title: string;
  published: string | null;
  summary: string;
}): TFeedEntryKey {
  const id = entry.id?.trim();
  if (id) return { key: bounded(id), keyKind: "id" };
  if (entry.link) return { key: bounded(entry.link), keyKind: "link" };
  // Without a title (RSS allows an item that is only a description) the text stands in for it, or every untitled
  // undated entry would share one key.
  const content = [entry.title, entry.published ?? "", entry.title ? "" : entry.summary].join("\n");
  return { key: `sha256:${sha256(content)}`, keyKind: "content" };
}

/** A key longer than the limit is its hash: still unique, and short enough to store and compare. */
function bounded(key: string): string {
  return key.length > FEED_ENTRY_LIMITS.keyChars ? `sha256:${sha256(key)}` : key;
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

import { FEED_ENTRY_LIMITS } from "@/contracts/feed-entry";

/**
 * An address from a feed as an absolute http(s) URL, resolved against `base` (the feed's address, or an
 * xml:base in Atom); null for anything else — `javascript:`, `mailto:`, `data:` and the unparseable are not links
 * a person should be sent to. The fragment is kept: changelog feeds often point each entry at an anchor of one page.
 */
export function resolveHttpUrl(raw: string | null | undefined, base: string | null): string | null {
  const text = raw?.trim();
  if (!text || text.length > FEED_ENTRY_LIMITS.linkChars) return null;
  let url: URL;
  try {
    url = base ? new URL(text, base) : new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return url.href.length > FEED_ENTRY_LIMITS.linkChars ? null : url.href;
}

/** A base for resolving: `raw` resolved against `base`, whatever its scheme (an xml:base may be relative). */
export function resolveBase(raw: string | null | undefined, base: string | null): string | null {
  const text = raw?.trim();
  if (!text) return base;
  try {
    return (base ? new URL(text, base) : new URL(text)).href;
  } catch {
    return base;
  }
}

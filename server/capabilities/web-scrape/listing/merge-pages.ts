import type { TListingItem } from "../../../../contracts/definition/listing-plan";

/**
 * The items of a paged listing read page after page, each item once: the first occurrence of a key is kept. Items are
 * identified by key, never by page or position, so a listing that shifts by one between reading page 1 and page 2
 * (an item added at the top pushes one down) yields that item once and loses none.
 */
export function mergePages(pages: TListingItem[][]): TListingItem[] {
  const seen = new Set<string>();
  const out: TListingItem[] = [];
  for (const page of pages) {
    for (const item of page) {
      if (seen.has(item.key)) continue;
      seen.add(item.key);
      out.push(item);
    }
  }
  return out;
}

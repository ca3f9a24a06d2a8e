import { MAX_LISTING_PAGES, type TListingItem, type TListingPlan } from "../../../../contracts/definition/listing-plan";
import { CapabilityFailure } from "../../envelope";
import { cleanUrl } from "../clean-url";
import { mergePages } from "./merge-pages";
import { DEFAULT_MAX_ITEMS } from "./read-listing";

/**
 * A paged listing followed from its first page (docs/sets.md, "Listing pages"): each next page the plan's link names,
 * on the first page's own host only, at most `plan.maxPages` pages in all, stopping at a page already read; the pages
 * merged by key (merge-pages.ts). Fetching and reading a page is the caller's (`readNext`): it goes through the same
 * address rules, fetch or browser, and page worker as the first page (docs/page-reading.md).
 */

/** The most items a listing read keeps, over all its pages (a set keeps at most its `maxEntities` of them). */
export const LISTING_MAX_ITEMS = DEFAULT_MAX_ITEMS;

/** One page as read: where it ended up (after redirects), its items under the plan and its next page's link. */
export type TListingPageRead = { finalUrl: string; items: TListingItem[]; nextPageUrl: string | null };

/** A whole listing as read: its items in page order, each key once; pages read; whether pages or items were left. */
export type TListingRead = { items: TListingItem[]; pages: number; truncated: boolean };

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

export async function followListingPages(
  first: TListingPageRead & { requestedUrl: string },
  plan: TListingPlan,
  readNext: (url: string) => Promise<TListingPageRead>,
  maxItems = LISTING_MAX_ITEMS,
): Promise<TListingRead> {
  const host = hostOf(first.finalUrl);
  const seen = new Set<string>();
  const see = (url: string) => {
    const clean = cleanUrl(url);
    if (clean) seen.add(clean);
  };
  see(first.requestedUrl);
  see(first.finalUrl);
  const limit = Math.min(plan.maxPages, MAX_LISTING_PAGES);
  const pages: TListingItem[][] = [first.items];
  const keys = new Set(first.items.map((i) => i.key));
  let truncated = false;
  let next = first.nextPageUrl;
  while (next !== null) {
    const url = cleanUrl(next);
    // A page already read is a loop (page 3 linking back to 1), and a link to another site is not this listing's
    // next page (next-page.ts refuses both; checked again here, where the fetch is decided): the listing ends there.
    if (url === null || seen.has(url) || hostOf(url) !== host) break;
    if (pages.length >= limit || keys.size >= maxItems) {
      truncated = true;
      break;
    }
    seen.add(url);
    const page = await readNext(url).catch((error: unknown) => {
      // The whole set or nothing: a listing read without a page would report that page's items as gone.
      if (error instanceof CapabilityFailure)
        throw new CapabilityFailure(
          error.code,
          `Reading page ${pages.length + 1} of the listing: ${error.message}`,
          error.retryable,
          error.details,
        );
      throw error;
    });
    if (hostOf(page.finalUrl) !== host)
      throw new CapabilityFailure(
        "INVALID_RESPONSE",
        `Page ${pages.length + 1} of the listing (${url}) redirected to another site (${page.finalUrl}); only pages on ${host} are read as this listing.`,
      );
    see(page.finalUrl);
    pages.push(page.items);
    for (const item of page.items) keys.add(item.key);
    next = page.nextPageUrl;
  }
  const items = mergePages(pages);
  if (items.length > maxItems) truncated = true;
  return { items: items.slice(0, maxItems), pages: pages.length, truncated };
}

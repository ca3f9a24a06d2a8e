import { buildHtmlTree, type THtmlTree } from "../html-tree";
import { readJsonLdBlocks } from "./json-ld-items";
import { baseUrlOf } from "./listing-dom";

/** A listing page parsed once for every read of it (detection reads its sample with several plans). */
export type TListingPage = { tree: THtmlTree; url: string; baseUrl: string; jsonLd: unknown[] };

/** From a tree already built (the page worker builds one per page for the document and CSS extractors). */
export function listingPageFromTree(tree: THtmlTree, url: string): TListingPage {
  return { tree, url, baseUrl: baseUrlOf(tree, url), jsonLd: readJsonLdBlocks(tree) };
}

export function listingPage(html: string, url: string): TListingPage {
  return listingPageFromTree(buildHtmlTree(html), url);
}

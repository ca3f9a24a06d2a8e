/**
 * Listing pages watched as a set of items (a category grid, search results, a store locator, a job board): detect
 * once at setup, read with the locked plan on every refresh (docs/design.md §3). Pure; no fetching here.
 */
export type { TListingItem, TListingPlan } from "../../../../contracts/definition/listing-plan";
export { DEFAULT_MAX_PAGES, detectListing, detectListingInPage, type TDetectedListing } from "./detect-listing";
export { listingPage, listingPageFromTree, type TListingPage } from "./listing-page";
export { isChosenId, moneyString } from "./listing-values";
export { mergePages } from "./merge-pages";
export { DEFAULT_MAX_ITEMS, readListing, readListingPage, type TListingOptions } from "./read-listing";

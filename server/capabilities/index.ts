export { canonicalJson } from "../lib/canonical-json";
export { assertPublicUrl } from "./check-public-url";
export {
  capabilityConfigFromEnv,
  DEFAULT_USER_AGENT,
  makeCapabilityConfig,
  type TBrowserConfig,
  type TCapabilityConfig,
  type TFetchConfig,
  type TMapsConfig,
} from "./config";
export { CapabilityFailure, completed, failed } from "./envelope";
export {
  MAPS_PLACE,
  mapsPlace,
  type TMapsPlaceInput,
  type TMapsPlaceOutput,
  ZMapsPlaceInputSchema,
  ZMapsPlaceOutputSchema,
} from "./maps-place";
export { normalizePlace, PLACE_FIELD_MASK, type TPlace, ZPlaceSchema } from "./maps-place/normalize-place";
export {
  assertPublicTarget,
  executeCapability,
  getCapability,
  listCapabilities,
  parseCapabilityInput,
  routeByContentType,
} from "./registry";
export * from "./types";
export { createMemoryLedger, defaultCallKey } from "./usage";
export {
  type TRenderMode,
  type TWebScrapeInput,
  type TWebScrapeOutput,
  WEB_SCRAPE,
  webScrape,
  ZRenderModeSchema,
  ZWebScrapeInputSchema,
  ZWebScrapeOutputSchema,
} from "./web-scrape";
export type { TAnchoredElement, TElementAnchor } from "./web-scrape/anchor-element";
export { findAvailabilityPhrase, normaliseAvailability, type TAvailability } from "./web-scrape/availability";
export { cleanUrl, isSessionParam, isTrackingParam } from "./web-scrape/clean-url";
export { cssQueryKey, isValidCssSelector, type TCssAnswer, type TCssQuery } from "./web-scrape/css-query";
export { detectPrices, parseAmount, type TDetectedPrice } from "./web-scrape/detect-prices";
export {
  DOCUMENT_FORMAT_VERSION,
  formatStructuredDocument,
  type TDocumentInput,
  type TStructuredDocument,
  ZStructuredDocumentSchema,
} from "./web-scrape/format-structured-document";
export { documentFormatOfHash, hashStructuredDocument } from "./web-scrape/hash-structured-document";
export { classifyAddress, isPublicAddress, type TAddressClass } from "./web-scrape/is-public-address";
export { looksLikeShell, type TShellVerdict } from "./web-scrape/looks-like-shell";
export { DEFAULT_PAGE_LIMITS, type TPageLimits } from "./web-scrape/page-limits";
export { SHOT_MAX_HEIGHT, shootPage } from "./web-scrape/page-shot";
export { ELEMENT_NUMBER, SNAPSHOT_MAX_CHARS, type TPageSnapshot } from "./web-scrape/page-snapshot";
export {
  anchorElementInWorker,
  answerCssInWorker,
  closePageWorkers,
  detectListingInWorker,
  encodeJsonOffThread,
  parseFeedInWorker,
  readListingInWorker,
  readPageInWorker,
  snapshotPageInWorker,
  stampedSnapshotInWorker,
  type TListingInWorkerOptions,
} from "./web-scrape/page-worker-pool";
export { readOffers, type TAvailabilityInfo, type TOffer } from "./web-scrape/read-offers";
export { closeBrowsers, pooledBrowserPid, renderPage } from "./web-scrape/render-page";
export { safeFetch, type TSafeFetchOptions } from "./web-scrape/safe-fetch";
export { VOLATILE_JSON_KEYS } from "./web-scrape/volatile-keys";

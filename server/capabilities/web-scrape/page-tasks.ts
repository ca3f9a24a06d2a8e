import { encodeJsonSync, type TEncodedJson } from "../../lib/encode-json";
import { CapabilityFailure } from "../envelope";
import { parseFeed, type TFeedParse } from "../feed-items/parse-feed";
import type { TCapabilityErrorCode } from "../types";
import { anchorElement, type TAnchoredElement } from "./anchor-element";
import { detectListing, readListing, type TDetectedListing, type TListingPlan } from "./listing";
import { snapshotPage, stampedSnapshot, type TPageSnapshot, type TStampedSnapshot } from "./page-snapshot";
import { type TPageResult, type TPageTask, understandPage } from "./understand-page";

/**
 * What a page worker (page-worker.mjs) runs: reading a page, or encoding what a refresh keeps of one (its capture:
 * JSON, sha256, Brotli) so that the server's thread only copies the value in and the bytes out (docs/design.md §5).
 */
export type TEncodeJsonTask = {
  kind: "encode-json";
  value: unknown;
  /** For messages: what is encoded ("a capture"). */
  label: string;
};
/** The sample page made inert and numbered for the page view (page-snapshot.ts). */
export type TSnapshotTask = {
  kind: "snapshot";
  html: string;
  maxChars?: number;
  /** Also the page stamped for its screenshot (a browser is configured). */
  stamp?: boolean;
};
/** The anchors of the element a person pointed at in the page view (anchor-element.ts). */
export type TAnchorElementTask = { kind: "anchor-element"; html: string; element: number };
/**
 * A listing page's items, detected (setup's sample) or read with a locked plan (a refresh): untrusted HTML parsed
 * and walked, so in a worker like every page (docs/page-reading.md).
 */
export type TDetectListingTask = { kind: "detect-listing"; html: string; url: string; maxItems?: number };
export type TReadListingTask = {
  kind: "read-listing";
  html: string;
  url: string;
  plan: TListingPlan;
  maxItems?: number;
};
/** A watched feed's entries (feed-items/parse-feed.ts): an untrusted body, parsed in a worker too. */
export type TParseFeedTask = { kind: "parse-feed"; text: string; url: string; maxEntries: number };
export type TReadListingResult = ReturnType<typeof readListing>;

export type TWorkerTask =
  | TPageTask
  | TEncodeJsonTask
  | TSnapshotTask
  | TAnchorElementTask
  | TDetectListingTask
  | TReadListingTask
  | TParseFeedTask;
export type TWorkerResult =
  | TPageResult
  | TEncodedJson
  | TPageSnapshot
  | TStampedSnapshot
  | TAnchoredElement
  | TDetectedListing
  | null
  | TReadListingResult
  | TFeedParse;

/**
 * A CapabilityFailure as it crosses postMessage: a thrown class instance arrives as a plain Error (its code, retryable
 * flag and details lost), so the worker sends these fields and the pool rebuilds the same failure.
 */
export type TWorkerFailure = {
  code: TCapabilityErrorCode;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
};

export function runPageTask(task: TWorkerTask): TWorkerResult {
  if (task.kind === "encode-json") return encodeJsonSync(task.value);
  if (task.kind === "snapshot")
    return task.stamp ? stampedSnapshot(task.html, task.maxChars) : snapshotPage(task.html, task.maxChars);
  if (task.kind === "anchor-element") return anchorElement(task.html, task.element);
  if (task.kind === "detect-listing") return detectListing(task.html, task.url, { maxItems: task.maxItems });
  if (task.kind === "read-listing") return readListing(task.html, task.url, task.plan, { maxItems: task.maxItems });
  if (task.kind === "parse-feed") return parseFeed(task.text, { url: task.url, maxEntries: task.maxEntries });
  return understandPage(task);
}

/** The fields of an expected failure thrown by a task (parse-feed's "not a feed"); undefined for anything else. */
export function workerFailureOf(error: unknown): TWorkerFailure | undefined {
  if (!(error instanceof CapabilityFailure)) return undefined;
  const failure: TWorkerFailure = { code: error.code, message: error.message, retryable: error.retryable };
  if (error.details) failure.details = error.details;
  return failure;
}

/** A task's name in messages ("Reading https://…", "Encoding a capture…"). */
export function describeTask(task: TWorkerTask): string {
  if (task.kind === "encode-json") return `Encoding ${task.label}`;
  if (task.kind === "snapshot") return "Keeping the sample page for the page view";
  if (task.kind === "anchor-element") return "Anchoring the element you pointed at";
  if (task.kind === "detect-listing") return `Looking for a listing's items on ${task.url}`;
  if (task.kind === "read-listing") return `Reading the listing ${task.url}`;
  if (task.kind === "parse-feed") return `Reading the feed ${task.url}`;
  return `Reading ${task.finalUrl}`;
}

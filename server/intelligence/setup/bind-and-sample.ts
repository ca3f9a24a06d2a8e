import {
  assertPublicTarget,
  executeCapability,
  getCapability,
  parseCapabilityInput,
  routeByContentType,
  shootPage,
  snapshotPageInWorker,
  stampedSnapshotInWorker,
  type TCapabilityConfig,
  type TPageSnapshot,
  type TWebScrapeOutput,
  WEB_SCRAPE,
} from "../../capabilities";
import type { TDb } from "../../db";
import { isAppError } from "../../errors";
import { createTracker } from "../tracker-store";
import { detectScriptContent } from "./detect-script-content";
import { readListingSample } from "./read-listing-sample";
import { readPageForDraft, type TPageReading } from "./read-page-for-draft";
import { linkSetupTracker, saveSetupSample } from "./session";
import { clearSetupPage, saveSetupPage, type TPageBox, type TPageShotKept } from "./setup-page-store";
import { trackerTitle } from "./tracker-title";

/**
 * What the session keeps of a sample: the results without raw HTML (big, volatile), and for web pages
 * the drafter's reading of it (read-page-for-draft.ts), made while the HTML was at hand.
 */
export type TSetupSample = {
  capability: string;
  input: unknown;
  label: string;
  results: Record<string, unknown>;
  reading?: TPageReading;
  /**
   * Web pages read plainly whose content a script fills in (detect-script-content.ts): why it looks so, and
   * whether the sample was then read in a browser. Absent when the page has its content in the HTML.
   */
  scriptContent?: { reasons: string[]; rendered: boolean; failed?: string };
  /**
   * A set was asked for (the agent's `watch`, else decision-wants-set.ts): whether the page is watched as a listing (its plan is then the
   * input's `listing`), or why not, in one sentence. Absent when no set was asked for.
   */
  listing?: { watched: true } | { watched: false; why: string };
};

/**
 * The sample page made inert for the page view (page-snapshot.ts), with the address it was read from, and its
 * picture when a browser is configured (page-shot.ts; null without one, or when the browser could not take it).
 */
export type TSamplePage = TPageSnapshot & { url: string; shot?: TPageShotKept | null; shotProblem?: string };

export type TReadSample =
  | {
      ok: true;
      sample: TSetupSample;
      page: TSamplePage | null;
      /** Why an HTML page has no copy for the page view (the worker refused it), for the person. */
      pageProblem?: string;
    }
  | { ok: false; message: string };

export type TBindResult = { ok: true; trackerId: string; sample: TSetupSample } | { ok: false; message: string };

/**
 * Keeps a sample with the session: its results and reading, and its page for the page view. `keepEarlier`: the page
 * read before stays beside it (a re-read shows where a field used to be).
 */
export async function keepSample(
  db: TDb,
  input: {
    userId: string;
    sessionId: string;
    keepEarlier?: boolean;
    earlier?: { html: string; readAt: Date } | null;
  },
  read: { sample: TSetupSample; page: TSamplePage | null },
): Promise<void> {
  const owner = { userId: input.userId, sessionId: input.sessionId };
  await saveSetupSample(db, { ...owner, sample: read.sample });
  if (read.page) {
    const { url, shot, ...snapshot } = read.page;
    const keep = { keepEarlier: input.keepEarlier ?? false, earlier: input.earlier ?? null };
    await saveSetupPage(db, { ...owner, url, snapshot, shot: shot ?? null, ...keep });
  } else await clearSetupPage(db, owner);
}

/**
 * Binding = the target check, one real capability call, then the draft tracker. The tracker is created only
 * after the sample was read, so a wrong or unreachable address leaves nothing behind and the person can simply
 * send another one. Failures come back as a message for the chat, never as a thrown error.
 */
export async function bindAndSample(
  db: TDb,
  input: {
    userId: string;
    sessionId: string;
    /** The person's first message (what the decision was written in). */
    decision: string;
    /** The agent's title for the decision, if it gave one (rules mode: none). */
    title?: string | undefined;
    capability: string;
    capabilityInput: unknown;
    label: string;
    config: TCapabilityConfig;
    signal?: AbortSignal;
    /** The decision is about a set (the agent's `watch`, else decision-wants-set.ts): a listing page is read as one. */
    findListing?: boolean;
  },
): Promise<TBindResult> {
  let parsedInput: unknown;
  try {
    parsedInput = parseCapabilityInput(input.capability, input.capabilityInput);
    // A private, loopback or link-local host is refused before the sample fetch, naming the host (docs/design.md §8).
    await assertPublicTarget(input.capability, parsedInput, input.config);
  } catch (error) {
    if (isAppError(error)) return { ok: false, message: error.message };
    throw error;
  }
  const read = await readSample({
    capability: input.capability,
    input: parsedInput,
    label: input.label,
    config: input.config,
    signal: input.signal,
    findListing: input.findListing ?? false,
  });
  if (!read.ok) return read;
  const { sample } = read;
  // The tracker is created from the sample's input, so a listing found there (`listing`) is what its refreshes read.
  parsedInput = sample.input;

  // The title is the decision, cleaned — never the raw message with its address (tracker-title.ts).
  const title = trackerTitle({
    proposed: input.title,
    message: input.decision,
    sampleName: sampleName(sample.results),
    capabilityInput: parsedInput,
  });
  const tracker = await createTracker(db, {
    userId: input.userId,
    decision: title,
    capability: sample.capability,
    capabilityInput: parsedInput,
  });
  await linkSetupTracker(db, { userId: input.userId, sessionId: input.sessionId, trackerId: tracker.id });
  await keepSample(db, { userId: input.userId, sessionId: input.sessionId }, read);
  return { ok: true, trackerId: tracker.id, sample };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the sample says the target is: the page's title or the place's name. */
function sampleName(results: Record<string, unknown>): string | null {
  const document = results.document as { title?: unknown } | undefined;
  if (typeof document?.title === "string" && document.title.trim()) return document.title;
  const place = results.place as { name?: unknown } | undefined;
  return typeof place?.name === "string" ? place.name : null;
}

/**
 * One real sample of the target: the capability call, then for web pages the drafter's reading. A page read
 * plainly whose price a script fills in is noticed here (even with plenty of other text, which the fetch's own
 * shell check lets through) and, under `render: auto` with a browser configured, read again in the browser so
 * a price can be drafted — remembered as `autoRender`, so refreshes render it too (docs/page-reading.md,
 * "Pages that need a browser"). Failures come back as a message for the chat.
 */
export async function readSample(input: {
  capability: string;
  input: unknown;
  label: string;
  config: TCapabilityConfig;
  signal?: AbortSignal | undefined;
  /** Look for a listing on a web page and, when there is one, read the sample as a set (read-listing-sample.ts). */
  findListing?: boolean;
}): Promise<TReadSample> {
  let parsedInput = input.input;
  let capability = input.capability;
  const call = (capabilityInput: unknown) =>
    executeCapability(capability, capabilityInput, { config: input.config, signal: input.signal });
  let envelope = await call(parsedInput);
  // An address that answers a document another capability reads (a PDF) is read by that one from here on.
  const contentType = envelope.error?.code === "UNSUPPORTED_CONTENT_TYPE" ? envelope.error.details?.contentType : null;
  const routed = typeof contentType === "string" ? routeByContentType(capability, parsedInput, contentType) : null;
  if (routed) {
    capability = routed.capability;
    parsedInput = routed.input;
    envelope = await call(parsedInput);
  }
  if (envelope.status !== "completed" || !envelope.results) {
    const why = envelope.error?.message ?? "The capability returned no data.";
    return { ok: false, message: `I could not read ${input.label}: ${why}` };
  }
  let scriptContent: TSetupSample["scriptContent"];
  if (capability === WEB_SCRAPE && isRecord(parsedInput)) {
    const out = envelope.results as TWebScrapeOutput;
    if (out.render?.rendered !== true && typeof out.html === "string") {
      const found = detectScriptContent({ html: out.html, document: out.document });
      if (found.scriptFilled) {
        scriptContent = { reasons: found.reasons, rendered: false };
        if ((parsedInput.render ?? "auto") === "auto" && input.config.fetch.browser) {
          const rendered = await call({ ...parsedInput, autoRender: true });
          if (rendered.status === "completed" && rendered.results) {
            envelope = rendered;
            scriptContent.rendered = true;
          } else {
            scriptContent.failed = rendered.error?.message ?? "the browser returned no page.";
          }
        }
      }
    }
  }
  // The page as read: its document and HTML make the drafter's reading and the page view, even when the sample's
  // results below are the listing read again as a set.
  const { html, ...pageResults } = envelope.results as Record<string, unknown>;
  // web.scrape `render: auto`: the sample decides how this tracker's page is read. A page that only JavaScript
  // fills is remembered as such, so its first refresh renders straight away (and the card says so).
  const render = pageResults.render as { autoRender?: boolean } | undefined;
  if (capability === WEB_SCRAPE && render?.autoRender === true && isRecord(parsedInput))
    parsedInput = { ...parsedInput, autoRender: true };
  let results = pageResults;
  let listing: TSetupSample["listing"];
  if (input.findListing && capability === WEB_SCRAPE && isRecord(parsedInput)) {
    // Detected once, off the main thread, while the HTML is at hand (the session keeps no HTML): docs/sets.md.
    const set = await readListingSample({
      page: envelope.results as Record<string, unknown>,
      capabilityInput: parsedInput,
      call,
      limits: input.config.fetch.page,
      signal: input.signal,
    });
    listing = set.ok ? { watched: true } : { watched: false, why: set.why };
    if (set.ok) {
      parsedInput = set.input;
      const { html: _listingHtml, ...listed } = set.envelope.results as Record<string, unknown>;
      results = listed;
    }
  }
  const sample: TSetupSample = { capability, input: parsedInput, label: input.label, results };
  if (scriptContent) sample.scriptContent = scriptContent;
  if (listing) sample.listing = listing;
  let page: TSamplePage | null = null;
  let pageProblem: string | undefined;
  if (getCapability(capability)?.pageView && pageResults.document) {
    // The HTML is asked (in the page worker) which element is the product's price and which are struck through.
    sample.reading = await readPageForDraft(
      pageResults.document,
      typeof html === "string" ? html : undefined,
      input.config.fetch.page,
    );
    if (typeof html === "string" && html) {
      const copied = await copyPage(html, pageResults, input.config, { photograph: true });
      if ("problem" in copied) pageProblem = copied.problem;
      else page = copied;
    }
  }
  return { ok: true, sample, page, ...(pageProblem ? { pageProblem } : {}) };
}

/** The page view's copy of the sample (docs/page-view.md); a page the worker cannot copy simply has no view. */
export async function samplePage(
  html: string,
  results: Record<string, unknown>,
  config: TCapabilityConfig,
): Promise<TSamplePage | null> {
  const copied = await copyPage(html, results, config);
  return "problem" in copied ? null : copied;
}

/**
 * The copy, or why the page worker refused to make it (its budget, a crash) — said, never swallowed. With
 * `photograph` and a browser configured, the page's picture too; a picture the browser could not take only
 * means the copy is shown instead (docs/page-view.md).
 */
async function copyPage(
  html: string,
  results: Record<string, unknown>,
  config: TCapabilityConfig,
  options: { photograph?: boolean } = {},
): Promise<TSamplePage | { problem: string }> {
  const url =
    typeof results.finalUrl === "string" ? results.finalUrl : typeof results.url === "string" ? results.url : "";
  try {
    if (!options.photograph || !config.fetch.browser || !/^https?:/i.test(url))
      return { url, ...(await snapshotPageInWorker(html, config.fetch.page)) };
    const { stamped, stamps, ...snapshot } = await stampedSnapshotInWorker(html, config.fetch.page);
    const shot = await photograph(url, stamped, new Map(stamps), config);
    return { url, ...snapshot, ...("problem" in shot ? { shot: null, shotProblem: shot.problem } : { shot }) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/** The picture, its boxes renumbered as the copy's elements (a stamp the copy dropped has no box). */
async function photograph(
  url: string,
  stamped: string,
  stamps: Map<number, number>,
  config: TCapabilityConfig,
): Promise<TPageShotKept | { problem: string }> {
  try {
    const shot = await shootPage(url, stamped, config.fetch, { stats: { requests: 0, bytes: 0 } });
    const boxes: TPageBox[] = [];
    for (const [stamp, x, y, w, h] of shot.boxes) {
      const n = stamps.get(stamp);
      if (n !== undefined) boxes.push([n, x, y, w, h]);
    }
    return { image: shot.image, width: shot.width, height: shot.height, boxes };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

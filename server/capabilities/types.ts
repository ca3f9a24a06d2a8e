import { z } from "zod";
import type { TFieldType } from "@/contracts/definition/field-schema";
import type { TMaterialityRule } from "@/contracts/definition/materiality-rule-schema";
import type { TCapabilityConfig } from "./config";
import type { TCssAnswer, TCssQuery } from "./web-scrape/css-query";

/** Stable, machine-readable failure codes. Messages are for people; codes are for code. */
export const ZCapabilityErrorCodeSchema = z.enum([
  "INVALID_INPUT",
  "UNKNOWN_CAPABILITY",
  "BLOCKED_ADDRESS",
  "UNSUPPORTED_URL",
  "DNS_FAILED",
  "CONNECTION_FAILED",
  "TIMEOUT",
  "TOO_LARGE",
  "TOO_MANY_REDIRECTS",
  "REDIRECT_LOOP",
  "UNSUPPORTED_CONTENT_TYPE",
  "HTTP_ERROR",
  "INVALID_RESPONSE",
  "NOT_CONFIGURED",
  "NOT_FOUND",
  "UNAUTHORIZED",
  "RATE_LIMITED",
  "ABORTED",
  /** The page could not be read within its time or memory budget (web.scrape's page worker). */
  "PAGE_TOO_COMPLEX",
  /** The browser rendering a page failed to start, crashed or disconnected (web.scrape `render`). */
  "RENDER_FAILED",
  "INTERNAL",
]);
export type TCapabilityErrorCode = z.infer<typeof ZCapabilityErrorCodeSchema>;

export const ZCapabilityErrorSchema = z.object({
  code: ZCapabilityErrorCodeSchema,
  /** Written for the user: what happened and what to do about it. */
  message: z.string(),
  /** True when the same call may succeed later (timeouts, 429, 5xx); the hot loop backs off. */
  retryable: z.boolean(),
  /** Safe extras (HTTP status, blocked address…); never secrets. */
  details: z.record(z.string(), z.unknown()).optional(),
});
export type TCapabilityError = z.infer<typeof ZCapabilityErrorSchema>;

export const ZCapabilityStatusSchema = z.enum(["completed", "failed", "partial"]);
export type TCapabilityStatus = z.infer<typeof ZCapabilityStatusSchema>;

/** The one shape every verb returns. `partial` carries results *and* an error saying what is missing. */
export type TCapabilityEnvelope<TResults> = {
  status: TCapabilityStatus;
  results?: TResults;
  error?: TCapabilityError;
};

export function makeEnvelopeSchema<T extends z.ZodType>(results: T) {
  return z.object({
    status: ZCapabilityStatusSchema,
    results: results.optional(),
    error: ZCapabilityErrorSchema.optional(),
  });
}

/** What a verb reports about one real upstream call (one capability execution that hit the network). */
export type TUsageInfo = {
  capability: string;
  /** The validated input (never contains secrets: keys live in config). */
  input: unknown;
  status: TCapabilityStatus;
  errorCode?: TCapabilityErrorCode;
  /** HTTP status of the final response, when there was one. */
  httpStatus?: number;
  /** HTTP requests made, redirect hops included. */
  requests: number;
  bytes: number;
  durationMs: number;
  startedAt: Date;
};

/**
 * Usage/billing hook. Called exactly once per execution that reached an upstream (no call for
 * invalid input, blocked addresses or missing keys). The lead backs it with a table unique on
 * (runId, callKey), so recording the same callKey again (a redelivered run) is a no-op there.
 * Errors thrown here propagate: a run should rather fail than use an unrecorded result.
 */
export type TUsageLedger = {
  record(callKey: string, info: TUsageInfo): void | Promise<void>;
};

export type TCapabilityContext = {
  config: TCapabilityConfig;
  signal?: AbortSignal;
  ledger?: TUsageLedger;
  /**
   * Idempotency key of this call within its run. Defaults to `<verb>:<sha256(input) prefix>`,
   * so a redelivered run re-executing the same call reuses the same key.
   */
  callKey?: string;
  /**
   * CSS queries to answer from the page while it is parsed anyway (web.scrape): the refresh passes its
   * definition's CSS extractors, so a page is parsed once, in the page worker. Not part of the input.
   */
  cssQueries?: readonly TCssQuery[];
  /**
   * The salt of the refresh pre-check's hash (tracker and definition version): a verb that builds its document off
   * the event loop (web.scrape) returns `contentHash` = hashStructuredDocument(document, hashSalt) computed there.
   * Not part of the input.
   */
  hashSalt?: string;
  /**
   * Content hashes (with `hashSalt`) the caller already holds, e.g. the refresh's entities' (web.scrape): a page whose
   * `contentHash` is one of them is unchanged for the caller, so its storable HTML is left out (`htmlOmitted`) — only
   * new content's capture keeps it (docs/refresh.md, "Unchanged pages"). Not part of the input.
   */
  knownContentHashes?: readonly string[];
  /**
   * Cache validators of the last good read (web.scrape, refreshes only): sent as If-None-Match / If-Modified-Since on
   * a plain fetch, and a 304 answers `notModified` with nothing downloaded or parsed (docs/refresh.md, "Conditional
   * requests"). Not part of the input.
   */
  conditional?: { etag: string | null; lastModified: string | null };
};

/**
 * A capability's result read back for the hot loop and the page view: the stable document to hash, the raw data the
 * extractors read (json for pointers, html and css answers for CSS, text for patterns) and what names the entity.
 */
export type TReadBack = {
  document: unknown;
  raw: { json: unknown; html?: string; text?: string; css?: Record<string, TCssAnswer> };
  /** The data's origin in a few words, for prompts ("web page https://…"). */
  source: string;
  /** What the identity rules read: the page's canonical address, the place id. */
  ids: { canonicalUrl?: string | null; url?: string; placeId?: string };
  /** The document's hash with the run's salt, when the verb computed it beside the document. */
  contentHash?: string;
  /**
   * A source that lists many members (a feed's entries): each member by its identity (never its position) and the
   * values its fields read (`json` pointers such as `/title`). The document holds them sorted by key, so its hash
   * is the whole set's, whatever their order (docs/sets.md).
   */
  items?: TSetMember[];
};

/** One member of a set as its source read it. */
export type TSetMember = { key: string; values: Record<string, unknown> };

/**
 * Rules mode, for a source whose read-back lists `items`: the draft watches them as a set (docs/sets.md), each member
 * read with these fields — the pointer `/<value>` into its values — under these rules.
 */
export type TSetDraft = {
  /** What one member and many are called in the setup chat ("entry", "entries"). */
  member: { one: string; many: string };
  fields: { value: string; type: TFieldType; description: string; rule: TMaterialityRule }[];
};

/** The identity rule a draft gets by default (the kinds of the definition's `identityRule`). */
export type TDefaultIdentity = "canonical_url" | "place_id" | "input";

/**
 * One data source, said once (docs/architecture.md "Adding a capability"): how it is called, and everything the rest
 * of the product asks of it — how a person names its target, what refuses one at the door, how its result is read
 * back, what a draft's identity is, and how the UI and the drafter speak of it. Every other module reads the registry.
 */
export type TCapability<TInput = unknown, TResults = unknown> = {
  name: string;
  description: string;
  inputSchema: z.ZodType<TInput>;
  /** Schema of `results` (the envelope wraps it). */
  outputSchema: z.ZodType<TResults>;
  /** Never throws for expected failures: they come back as `status: "failed"` envelopes. */
  execute(input: TInput, ctx: TCapabilityContext): Promise<TCapabilityEnvelope<TResults>>;
  /** What people call one target ("web page", "PDF document", "Google Maps place"). */
  noun: string;
  /** The target in a few words, for lists, chat and the public API ("https://…", "place ChIJ…"). */
  describeTarget(input: TInput): string;
  /**
   * The one argument a target is given by — in the drafter's bind tool and in the person's words. `find` spots it in
   * a message (rules mode); capabilities that share an argument (a web address) are told apart by `contentTypes`.
   */
  target: { arg: string; describe: string; find?: (text: string) => string | null };
  /** Media types a web address may answer with that this capability reads: setup routes such an address here. */
  contentTypes?: readonly string[];
  /** The identity rule of a draft made from its sample. */
  identity: TDefaultIdentity;
  /** One line for the drafter: what a sample of it holds and what is worth watching there. */
  drafterHint: string;
  /**
   * Rules mode: besides what its structure offers (prices, stock), a draft also watches the document's lines as one
   * field the agent judges, with this guidance — for documents whose words matter (terms, notices, menus).
   */
  watchLines?: { description: string; guidance: string };
  /** Rules mode: a sample whose read-back lists `items` is drafted as a set with these member fields. */
  draftSet?: TSetDraft;
  /**
   * The host a call goes to, for politeness per host (docs/scheduling.md): calls to one host share its limit on
   * requests in flight, its least gap and its Retry-After hold. Without it (or null) a call is not gated.
   */
  hostOf?(input: TInput, config: TCapabilityConfig): string | null;
  /** Refuses a target at the door (creating a tracker, binding in setup) with an AppError the person can act on. */
  checkTarget?(input: TInput, config: TCapabilityConfig): Promise<void>;
  /** Reads a stored result back (refreshes, replay, the page view). */
  readBack(input: TInput, results: TResults): TReadBack;
  /** Web pages only: the page view, the read modes and page copies. */
  pageView?: boolean;
};

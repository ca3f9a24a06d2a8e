import { capabilityConfigFromEnv, executeCapability } from "../../capabilities";
import type { TTrackerDefinition } from "../definition";
import { cssQueriesOf } from "../fill";
import { rememberRenderDecision } from "../tracker-store";
import { describeRender, renderInfoOf, type TRenderInfo } from "./describe-render";
import type { TConditional } from "./page-validators";
import { readCapture, type TCapture } from "./read-capture";
import { hostWaitOf, RefreshFailure } from "./refresh-failure";
import type { TRunContext } from "./run-context";

export type TCrawled = TCapture & {
  render: TRenderInfo | undefined;
  /** The page's cache validators (web.scrape's plain fetch), for the next refresh's conditional request. */
  validators?: { etag: string | null; lastModified: string | null };
  /**
   * The page's storable HTML was left out because its hash is one of `knownHashes` (web.scrape): enough to find it
   * unchanged, not to keep as new content's capture (refresh-tracker.ts reads it again in full then).
   */
  htmlOmitted?: true;
};

/** The crawl: a read page, or a 304 to the validators sent — nothing downloaded or read (docs/refresh.md). */
export type TCrawl =
  | { kind: "read"; capture: TCrawled }
  | { kind: "not-modified"; conditional: TConditional; validators?: TCrawled["validators"] };

/**
 * Step 2, crawl (docs/design.md §3): the bound capability's call, read back as the document to hash, the raw data to
 * fill from and the entity's identity. A failed or empty call fails the run with the capability's own error.
 */
export async function crawlSource(
  ctx: TRunContext,
  input: {
    def: TTrackerDefinition;
    hashSalt: string;
    conditional: TConditional | null;
    /** Content hashes the tracker's entities hold: a page with one of them comes back without its HTML. */
    knownHashes?: readonly string[];
  },
): Promise<TCrawl> {
  const { tracker, options } = ctx;
  const crawl = await ctx.steps.time(
    "crawl",
    async () => {
      const envelope = await executeCapability(tracker.capability, tracker.capabilityInput, {
        config: options.capabilityConfig ?? capabilityConfigFromEnv(),
        ledger: ctx.ledger,
        callKey: `crawl:${tracker.capability}`,
        // CSS extractors are answered from the crawl's own parse of the page (one parse, off the event loop).
        cssQueries: cssQueriesOf(input.def),
        // ...and so is the pre-check's hash (computed there beside the document, by the same function as the
        // pre-check's own).
        hashSalt: input.hashSalt,
        ...(input.knownHashes?.length ? { knownContentHashes: input.knownHashes } : {}),
        // The last good read's validators, when a 304 to them may stand for it (page-validators.ts).
        ...(input.conditional
          ? { conditional: { etag: input.conditional.etag, lastModified: input.conditional.lastModified } }
          : {}),
      });
      if (envelope.status !== "completed" || !envelope.results) {
        const error = envelope.error;
        throw new RefreshFailure(
          error?.code ?? "CAPABILITY_FAILED",
          error?.message ?? `${tracker.capability} returned no data.`,
          error?.retryable ?? true,
          hostWaitOf(error?.details, ctx.now()),
        );
      }
      const results = envelope.results as {
        notModified?: unknown;
        validators?: TCrawled["validators"];
        htmlOmitted?: unknown;
      };
      // Only an answer to validators this run sent may stand for the last read.
      if (results.notModified === true && input.conditional)
        return {
          kind: "not-modified",
          conditional: input.conditional,
          ...(results.validators ? { validators: results.validators } : {}),
        } as const;
      if (results.notModified === true)
        throw new RefreshFailure("CAPABILITY_FAILED", `${tracker.capability} answered "not modified" unasked.`, true);
      const capture: TCrawled = {
        ...readCapture(tracker.capability, tracker.capabilityInput, envelope.results, input.def.identityRule),
        render: renderInfoOf(envelope.results),
        ...(results.validators ? { validators: results.validators } : {}),
        ...(results.htmlOmitted === true ? { htmlOmitted: true as const } : {}),
      };
      return { kind: "read", capture } as const;
    },
    (c) =>
      c.kind === "not-modified"
        ? "not modified (304): nothing downloaded or read"
        : c.capture.render
          ? `${c.capture.entityKey} · ${describeRender(c.capture.render)}`
          : c.capture.entityKey,
  );
  if (crawl.kind === "not-modified") return crawl;
  const capture = crawl.capture;
  // `auto` found a page that only JavaScript fills: remember it, so the next refreshes render straight away
  // (one write, once per tracker; plain pages never write anything here).
  if (capture.render?.autoRender === true && (tracker.capabilityInput as { autoRender?: unknown }).autoRender !== true)
    await rememberRenderDecision(ctx.db, { trackerId: ctx.trackerId, autoRender: true });
  return crawl;
}

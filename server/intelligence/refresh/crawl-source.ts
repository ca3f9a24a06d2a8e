import { capabilityConfigFromEnv, executeCapability } from "../../capabilities";
import type { TTrackerDefinition } from "../definition";
import { cssQueriesOf } from "../fill";
import { rememberRenderDecision } from "../tracker-store";
import { describeRender, renderInfoOf, type TRenderInfo } from "./describe-render";
import { readCapture, type TCapture } from "./read-capture";
import { RefreshFailure } from "./refresh-failure";
import type { TRunContext } from "./run-context";

export type TCrawled = TCapture & { render: TRenderInfo | undefined };

/**
 * Step 2, crawl (docs/design.md §3): the bound capability's call, read back as the document to hash, the raw data to
 * fill from and the entity's identity. A failed or empty call fails the run with the capability's own error.
 */
export async function crawlSource(
  ctx: TRunContext,
  input: { def: TTrackerDefinition; hashSalt: string },
): Promise<TCrawled> {
  const { tracker, options } = ctx;
  const capture = await ctx.steps.time(
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
      });
      if (envelope.status !== "completed" || !envelope.results) {
        const error = envelope.error;
        throw new RefreshFailure(
          error?.code ?? "CAPABILITY_FAILED",
          error?.message ?? `${tracker.capability} returned no data.`,
          error?.retryable ?? true,
        );
      }
      return {
        ...readCapture(tracker.capability, tracker.capabilityInput, envelope.results, input.def.identityRule),
        render: renderInfoOf(envelope.results),
      };
    },
    (c) => (c.render ? `${c.entityKey} · ${describeRender(c.render)}` : c.entityKey),
  );
  // `auto` found a page that only JavaScript fills: remember it, so the next refreshes render straight away
  // (one write, once per tracker; plain pages never write anything here).
  if (capture.render?.autoRender === true && (tracker.capabilityInput as { autoRender?: unknown }).autoRender !== true)
    await rememberRenderDecision(ctx.db, { trackerId: ctx.trackerId, autoRender: true });
  return capture;
}

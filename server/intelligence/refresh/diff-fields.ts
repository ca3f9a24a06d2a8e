import type { TRecord, TTrackerDefinition } from "../definition";
import { diffRecords, type TDeltas } from "../diff";
import type { TFillRecordResult } from "../fill";
import type { TCrawled } from "./crawl-source";
import { nextFieldHealth, type THealthUpdate } from "./field-health";
import type { TAcceptedState } from "./precheck-content";
import type { TRunContext } from "./run-context";

export type TDiffed = {
  /** The accepted record diffed against (null on the first run). */
  previous: TRecord | null;
  /** The filled record with each counted miss carrying its last value. */
  carried: TRecord;
  /** Field health after this run. */
  health: THealthUpdate;
  deltas: TDeltas;
};

/**
 * Step 5, diff (code) against the accepted record. A field that read before and reads nothing now is a miss, not a
 * change: it keeps its last value here and is counted in the tracker's field health (docs/field-health.md).
 */
export async function diffFields(
  ctx: TRunContext,
  input: { def: TTrackerDefinition; state: TAcceptedState | null; filled: TFillRecordResult; capture: TCrawled },
): Promise<TDiffed> {
  const { tracker } = ctx;
  const { def, capture } = input;
  const previous = (input.state?.fields as TRecord | undefined) ?? null;
  const { carried, ...health } = nextFieldHealth({
    def,
    previous,
    record: input.filled.record,
    warnings: input.filled.warnings,
    prior: tracker.fieldHealth,
    page: {
      rendered: capture.render?.rendered === true,
      mode: (tracker.capabilityInput as { render?: string } | null)?.render,
      html: capture.raw.html,
      document: capture.document,
      css: capture.raw.css,
    },
    after: ctx.missingAfter,
  });
  const deltas = await ctx.steps.time(
    "diff",
    async () => diffRecords(previous, carried, def),
    (d) => `${Object.keys(d).length} delta(s)`,
  );
  return { previous, carried, health, deltas };
}

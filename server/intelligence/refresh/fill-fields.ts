import type { LanguageModel } from "ai";
import type { TTrackerDefinition } from "../definition";
import { fillRecord, type TFillRecordResult } from "../fill";
import type { TCrawled } from "./crawl-source";
import { metered } from "./meter-model-calls";
import type { TRunContext } from "./run-context";

/**
 * Step 4, fill (docs/design.md §3): the locked fields by their extractors, the rest by one validated model call (none
 * in rules mode), its cost charged to the run whether or not it succeeds.
 */
export function fillFields(
  ctx: TRunContext,
  input: {
    def: TTrackerDefinition;
    capture: TCrawled;
    model: LanguageModel | null;
    checkBudget: () => Promise<void>;
  },
): Promise<TFillRecordResult> {
  const { options } = ctx;
  return metered(
    ctx.cost,
    ctx.steps.time(
      "fill",
      () =>
        fillRecord({
          def: input.def,
          raw: input.capture.raw,
          model: input.model,
          decision: ctx.tracker.decision,
          source: input.capture.source,
          beforeModelCall: input.checkBudget,
          ...(options.maxModelRetries !== undefined ? { maxRetries: options.maxModelRetries } : {}),
        }),
      (f) => `${f.modelCalls} model call(s)${f.warnings.length ? `; ${f.warnings.join("; ")}` : ""}`,
    ),
  );
}

import type { LanguageModel } from "ai";
import { retrieveContextChunks } from "../../context";
import type { TTrackerDefinition } from "../definition";
import type { TDeltas } from "../diff";
import { judgeAll, type TJudgeAllResult } from "./decide-change";
import { metered } from "./meter-model-calls";
import type { TRunContext } from "./run-context";

/**
 * Step 6, judge (docs/design.md §3): rules first (free, reproducible), then one model call for whatever they cannot
 * decide, its cost charged to the run whether or not it succeeds.
 */
export function judgeChanges(
  ctx: TRunContext,
  input: {
    def: TTrackerDefinition;
    version: number;
    deltas: TDeltas;
    model: LanguageModel | null;
    checkBudget: () => Promise<void>;
  },
): Promise<TJudgeAllResult> {
  const { db, tracker, trackerId, options } = ctx;
  return metered(
    ctx.cost,
    ctx.steps.time(
      "judge",
      () =>
        judgeAll(db, input.def, input.deltas, {
          decision: tracker.decision,
          owner: { userId: tracker.userId, trackerId },
          version: input.version,
          model: input.model,
          retrieve: options.retrieveContext ?? ((q) => retrieveContextChunks(db, q)),
          beforeModelCall: input.checkBudget,
          ...(options.maxModelRetries !== undefined ? { maxRetries: options.maxModelRetries } : {}),
        }),
      (j) => `${j.modelCalls} model call(s)`,
    ),
  );
}

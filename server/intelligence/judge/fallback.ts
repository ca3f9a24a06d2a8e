import type { TDeltas } from "../diff/diff-records";
import type { TJudgeVerdict } from "./schema";

export const RULES_MODE_REASON = "No AI model configured — flagged for your review";

/** Rules mode: nothing undecided is dropped; every such delta is shown to the user as notable. */
export function judgeDeltasRulesMode(deltas: TDeltas): Record<string, TJudgeVerdict> {
  return Object.fromEntries(
    Object.keys(deltas).map((name) => [
      name,
      { verdict: "notable", decidedBy: "code", reason: RULES_MODE_REASON } as const,
    ]),
  );
}

import type { TDeltas } from "../diff/diff-records";
import type { TCodeVerdict } from "./verdict-types";

/** The deltas the code could not decide: exactly what goes to the judge's single call. */
export function pickUndecided(deltas: TDeltas, verdicts: Record<string, TCodeVerdict>): TDeltas {
  const out: TDeltas = {};
  for (const [name, delta] of Object.entries(deltas)) if (verdicts[name]?.verdict === "undecided") out[name] = delta;
  return out;
}

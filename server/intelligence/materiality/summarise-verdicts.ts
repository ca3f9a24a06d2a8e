import type { TOverallMateriality } from "./verdict-types";

/**
 * The run's overall outcome: any material → material; else any notable → notable; else any noise →
 * noise; no verdicts → none. A verdict still "undecided" counts as notable: never silently drop a
 * change nobody has judged.
 */
export function summariseVerdicts(verdicts: Record<string, { verdict: string }>): TOverallMateriality {
  const kinds = new Set(Object.values(verdicts).map((v) => v.verdict));
  if (kinds.has("material")) return "material";
  if (kinds.has("notable") || kinds.has("undecided")) return "notable";
  if (kinds.size > 0) return "noise";
  return "none";
}

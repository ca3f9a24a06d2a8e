import { type TSpecLimits, validateFeedSpec } from "@/contracts/feed-catalog";
import type { TFeedSpec } from "@/contracts/feed-item";

/**
 * What the prompt allows a synthetic card (prompt.ts states the same numbers): the components, how many
 * cards, and a small tree. The one check for synthetic specs — used when normalising the model's answer and
 * again when reading a cached enhancement, so a row stored before a rule existed is held to it too.
 */
export const SYNTHETIC_COMPONENTS = ["Stack", "Heading", "Text", "Link"] as const;
export const MAX_SYNTHETIC = 2;
export const SYNTHETIC_SPEC_LIMITS: TSpecLimits = { maxElements: 20, maxDepth: 3, components: SYNTHETIC_COMPONENTS };

export type TSyntheticCandidate = { id: string; type: string; ui: unknown };
export type TSyntheticItem = { id: string; type: string; ui: TFeedSpec };

/** Keeps the first `MAX_SYNTHETIC` candidates whose spec passes and whose id is new; says why the rest went. */
export function keepSafeSynthetic(
  candidates: readonly TSyntheticCandidate[],
  takenIds: ReadonlySet<string> = new Set(),
): { kept: TSyntheticItem[]; dropped: { id: string; reason: string }[] } {
  const kept: TSyntheticItem[] = [];
  const dropped: { id: string; reason: string }[] = [];
  const ids = new Set(takenIds);
  for (const c of candidates) {
    if (kept.length >= MAX_SYNTHETIC) {
      dropped.push({ id: c.id, reason: `more than ${MAX_SYNTHETIC} synthetic items` });
      continue;
    }
    if (ids.has(c.id)) {
      dropped.push({ id: c.id, reason: "id already used" });
      continue;
    }
    const check = validateFeedSpec(c.ui, SYNTHETIC_SPEC_LIMITS);
    if (!check.ok) {
      dropped.push({ id: c.id, reason: check.problem });
      continue;
    }
    ids.add(c.id);
    kept.push({ id: c.id, type: c.type, ui: check.spec });
  }
  return { kept, dropped };
}

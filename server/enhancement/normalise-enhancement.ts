import { validateFeedSpec } from "@/contracts/feed-catalog";
import type { THarnessInput } from "./build-input";
import type { TEnhancementOutput, TEnhancementResult } from "./schema";

const MAX_SYNTHETIC = 3;

export type TDropped = { kind: "slot" | "synthetic" | "suppress" | "hint"; reason: string };

/**
 * Keeps only what refers to known items and slots; synthetic items must validate against the catalog.
 * Returns what was dropped so the caller can log it.
 */
export function normaliseEnhancement(
  output: TEnhancementOutput,
  input: THarnessInput,
  knownIds: ReadonlySet<string>,
): { result: TEnhancementResult; dropped: TDropped[] } {
  const dropped: TDropped[] = [];
  const slotsById = new Map(input.items.map((i) => [i.id, new Set(Object.keys(i.slots))]));
  const slotFills: TEnhancementResult["slotFills"] = {};
  for (const fill of output.slotFills) {
    const slots = slotsById.get(fill.itemId);
    if (!slots?.has(fill.slot)) {
      dropped.push({ kind: "slot", reason: `unknown item or slot ${fill.itemId}/${fill.slot}` });
      continue;
    }
    const text = fill.text.trim().slice(0, 600);
    if (!text) continue;
    slotFills[fill.itemId] = { ...slotFills[fill.itemId], [fill.slot]: text };
  }
  const syntheticItems: TEnhancementResult["syntheticItems"] = [];
  for (const s of output.syntheticItems) {
    if (syntheticItems.length >= MAX_SYNTHETIC) {
      dropped.push({ kind: "synthetic", reason: `${s.id}: more than ${MAX_SYNTHETIC} synthetic items` });
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(s.uiJson);
    } catch {
      dropped.push({ kind: "synthetic", reason: `${s.id}: uiJson is not JSON` });
      continue;
    }
    const check = validateFeedSpec(parsed);
    if (!check.ok) {
      dropped.push({ kind: "synthetic", reason: `${s.id}: ${check.problem}` });
      continue;
    }
    if (knownIds.has(s.id)) {
      dropped.push({ kind: "synthetic", reason: `${s.id}: id already used` });
      continue;
    }
    syntheticItems.push({ id: `synthetic:${s.id}`.slice(0, 120), type: s.type.slice(0, 60), ui: check.spec });
  }
  const suppress = output.suppress.filter((id) => {
    const ok = knownIds.has(id);
    if (!ok) dropped.push({ kind: "suppress", reason: `unknown item ${id}` });
    return ok;
  });
  const rankingHints: Record<string, number> = {};
  for (const h of output.rankingHints) {
    if (knownIds.has(h.itemId)) rankingHints[h.itemId] = Math.max(-1, Math.min(1, h.delta));
    else dropped.push({ kind: "hint", reason: `unknown item ${h.itemId}` });
  }
  return { result: { slotFills, syntheticItems, suppress, rankingHints }, dropped };
}

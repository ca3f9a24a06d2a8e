import { BRIEFING_TYPE, clampBriefingText } from "./briefing-text";
import type { THarnessInput } from "./build-input";
import type { TEnhancementOutput, TEnhancementResult } from "./schema";
import { keepSafeSynthetic, type TSyntheticCandidate } from "./synthetic-spec";

export type TDropped = { kind: "slot" | "synthetic" | "suppress" | "hint"; reason: string };

/**
 * Keeps only what refers to known items and slots; synthetic items must pass `keepSafeSynthetic`. The briefing
 * card's text is held to two lines, and the card is never suppressed or re-ranked by the model (its place at the top
 * is code's, docs/feed.md "The briefing card"). Returns what was dropped so the caller can log it.
 */
export function normaliseEnhancement(
  output: TEnhancementOutput,
  input: THarnessInput,
  knownIds: ReadonlySet<string>,
): { result: TEnhancementResult; dropped: TDropped[] } {
  const dropped: TDropped[] = [];
  const slotsById = new Map(input.items.map((i) => [i.id, new Set(Object.keys(i.slots))]));
  const briefings = new Set(input.items.filter((i) => i.type === BRIEFING_TYPE).map((i) => i.id));
  const slotFills: TEnhancementResult["slotFills"] = {};
  for (const fill of output.slotFills) {
    const slots = slotsById.get(fill.itemId);
    if (!slots?.has(fill.slot)) {
      dropped.push({ kind: "slot", reason: `unknown item or slot ${fill.itemId}/${fill.slot}` });
      continue;
    }
    const text = briefings.has(fill.itemId) ? clampBriefingText(fill.text) : fill.text.trim().slice(0, 600);
    if (!text) continue;
    slotFills[fill.itemId] = { ...slotFills[fill.itemId], [fill.slot]: text };
  }
  const candidates: TSyntheticCandidate[] = [];
  for (const s of output.syntheticItems) {
    const id = `synthetic:${s.id}`.slice(0, 120);
    try {
      candidates.push({ id, type: s.type.slice(0, 60), ui: JSON.parse(s.uiJson) });
    } catch {
      dropped.push({ kind: "synthetic", reason: `${id}: uiJson is not JSON` });
    }
  }
  const synthetic = keepSafeSynthetic(candidates, knownIds);
  for (const d of synthetic.dropped) dropped.push({ kind: "synthetic", reason: `${d.id}: ${d.reason}` });
  const syntheticItems = synthetic.kept;
  const suppress = output.suppress.filter((id) => {
    const ok = knownIds.has(id) && !briefings.has(id);
    if (!ok) dropped.push({ kind: "suppress", reason: `${briefings.has(id) ? "the briefing" : "unknown item"} ${id}` });
    return ok;
  });
  const rankingHints: Record<string, number> = {};
  for (const h of output.rankingHints) {
    if (briefings.has(h.itemId)) dropped.push({ kind: "hint", reason: `the briefing ${h.itemId}` });
    else if (knownIds.has(h.itemId)) rankingHints[h.itemId] = Math.max(-1, Math.min(1, h.delta));
    else dropped.push({ kind: "hint", reason: `unknown item ${h.itemId}` });
  }
  return { result: { slotFills, syntheticItems, suppress, rankingHints }, dropped };
}

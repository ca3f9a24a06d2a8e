import type { TFeedItem } from "@/contracts/feed-item";
import type { TEnhancementResult } from "@/server/enhancement/schema";
import { order } from "./post-process";

/**
 * Applies a (cached) enhancement: fills known slots of known items, drops suppressed items, adds
 * synthetic items and ranking hints, then orders. Unknown ids and slot names are ignored.
 */
export function mergeEnhancement(items: TFeedItem[], result: TEnhancementResult | null, now: Date): TFeedItem[] {
  if (!result) return order(items, { now, memoryWords: [] });
  const suppressed = new Set(result.suppress);
  const merged: TFeedItem[] = [];
  for (const item of items) {
    if (suppressed.has(item.id)) continue;
    let next = item;
    const fills = result.slotFills[item.id];
    if (fills && item.slots) {
      const slots = { ...item.slots };
      for (const [name, content] of Object.entries(fills)) {
        const slot = slots[name];
        if (slot && content !== null) slots[name] = { ...slot, content };
      }
      next = { ...item, slots };
    }
    const hint = result.rankingHints[item.id];
    if (typeof hint === "number") {
      // One copy per item: the one made for the slots (ours to change) takes the score too.
      if (next === item) next = { ...item, score: (item.score ?? 0) + hint };
      else next.score = (next.score ?? 0) + hint;
    }
    merged.push(next);
  }
  // A synthetic item never replaces a card: looked up in a set, not by a search of the feed per synthetic item.
  const ids = result.syntheticItems.length > 0 ? new Set(merged.map((m) => m.id)) : null;
  for (const s of result.syntheticItems) {
    if (suppressed.has(s.id) || ids?.has(s.id)) continue;
    ids?.add(s.id);
    merged.push({
      id: s.id,
      sourceId: "enhancement",
      type: s.type,
      timestamp: now,
      data: {},
      ui: s.ui,
      synthetic: true,
      score: 0.6 + (result.rankingHints[s.id] ?? 0),
    });
  }
  return order(merged, { now, memoryWords: [] });
}

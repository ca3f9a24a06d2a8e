import type { TFeedItem } from "@/contracts/feed-item";
import type { TEnhancementResult } from "../enhancement/schema";
import { order } from "./post-process";

/** Whether an item has this id (a plain loop over the feed: it runs once per synthetic item, at most twice). */
function hasId(items: readonly TFeedItem[], id: string): boolean {
  for (let i = 0; i < items.length; i++) if ((items[i] as TFeedItem).id === id) return true;
  return false;
}

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
  // A synthetic item never replaces a card (nor an earlier synthetic item). There are at most MAX_SYNTHETIC (2):
  // comparing their ids with the feed's is cheaper than a set of every card's id on every load, and linear too.
  for (const s of result.syntheticItems) {
    if (suppressed.has(s.id) || hasId(merged, s.id)) continue;
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

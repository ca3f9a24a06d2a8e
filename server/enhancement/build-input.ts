import { createHash } from "node:crypto";
import type { TFeedItem } from "@/contracts/feed-item";
import { canonicalJson } from "@/server/lib/canonical-json";

export type THarnessItem = { id: string; type: string; data: Record<string, unknown>; slots: Record<string, string> };
export type THarnessInput = { items: THarnessItem[]; userMemory: string };

/**
 * Budget for the items' JSON in the prompt (characters). The prompt carries the items as one JSON array, so
 * the budget is met by leaving out whole items, lowest-ranked first — never by cutting the JSON (a truncated
 * array is not JSON, and the model would guess at the cut item).
 */
export const MAX_PROMPT_ITEMS_CHARS = 24_000;

/**
 * Only items with slots go to the model; slot descriptions replace the slot objects. Items are taken by rank
 * (score, higher first; input order on ties) while their JSON fits `maxItemsChars`; the first that does not
 * fit ends the list, except one bigger than the whole budget, which is never sent. Kept items stay in input order.
 */
export function buildHarnessInput(
  items: TFeedItem[],
  memory: string,
  maxItemsChars = MAX_PROMPT_ITEMS_CHARS,
): THarnessInput & { left: string[] } {
  const slotted = items
    .filter((item) => item.slots && Object.keys(item.slots).length > 0)
    .map((item, index) => ({
      index,
      score: item.score ?? 0,
      entry: {
        id: item.id,
        type: item.type,
        data: item.data,
        slots: Object.fromEntries(Object.entries(item.slots ?? {}).map(([name, s]) => [name, s.description])),
      } satisfies THarnessItem,
    }));
  const ranked = [...slotted].sort((a, b) => b.score - a.score || a.index - b.index);
  const kept = new Set<number>();
  const left: string[] = [];
  let used = 2; // "[" and "]"
  let full = false;
  for (const r of ranked) {
    const size = JSON.stringify(r.entry).length;
    const cost = size + (kept.size > 0 ? 1 : 0); // the comma before it
    if (size + 2 > maxItemsChars) {
      left.push(r.entry.id); // could never fit: skipped without ending the list
      continue;
    }
    if (full || used + cost > maxItemsChars) {
      full = true;
      left.push(r.entry.id);
      continue;
    }
    used += cost;
    kept.add(r.index);
  }
  return { items: slotted.filter((s) => kept.has(s.index)).map((s) => s.entry), userMemory: memory, left };
}

/** Hash gate over item ids + data + slot descriptions + user memory (not the time: it changes every call). */
export function hashHarnessInput(input: THarnessInput): string {
  return createHash("sha256")
    .update(canonicalJson({ items: input.items, userMemory: input.userMemory }))
    .digest("hex")
    .slice(0, 32);
}

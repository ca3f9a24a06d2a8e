import type { TFeedItem } from "@/contracts/feed-item";

export type TPostContext = { now: Date /** lower-cased words from the user's memory notes */; memoryWords: string[] };
export type TPostProcessor = (items: TFeedItem[], ctx: TPostContext) => TFeedItem[];

const RELEVANCE_BONUS = { imminent: 0.5, upcoming: 0.2, ambient: 0 } as const;
const DEFAULT_URGENCY = 0.3;

/** Same id twice (e.g. a source retried) → keep the newest. */
export const dedup: TPostProcessor = (items) => {
  const byId = new Map<string, TFeedItem>();
  for (const item of items) {
    const seen = byId.get(item.id);
    if (!seen || item.timestamp > seen.timestamp) byId.set(item.id, item);
  }
  return [...byId.values()];
};

/** Base score from the item's own signals. */
export const scoreSignals: TPostProcessor = (items) =>
  items.map((item) => {
    const urgency = item.signals?.urgency ?? DEFAULT_URGENCY;
    const bonus = item.signals ? RELEVANCE_BONUS[item.signals.timeRelevance] : 0;
    return { ...item, score: urgency + bonus };
  });

/** Items whose data mentions something from the user's memory notes move up a little. */
export const affinity: TPostProcessor = (items, ctx) => {
  if (ctx.memoryWords.length === 0) return items;
  return items.map((item) => {
    const text = JSON.stringify(item.data).toLowerCase();
    const hit = ctx.memoryWords.some((w) => text.includes(w));
    return hit ? { ...item, score: (item.score ?? 0) + 0.15 } : item;
  });
};

/** Weather matters most in the morning; calendar events within the next 2 hours are boosted all day. */
export const timeOfDay: TPostProcessor = (items, ctx) => {
  const hour = ctx.now.getHours();
  return items.map((item) => {
    let delta = 0;
    if (item.type === "weather-current" && hour >= 5 && hour < 10) delta += 0.2;
    if (item.type === "calendar-event") {
      const start = new Date(String(item.data.start ?? "")).getTime();
      const until = start - ctx.now.getTime();
      if (Number.isFinite(until) && until >= 0 && until <= 2 * 3_600_000) delta += 0.3;
    }
    return delta ? { ...item, score: (item.score ?? 0) + delta } : item;
  });
};

/**
 * Items of one tracker render as one group (several changes to the same tracker belong together).
 * Items already carrying a groupKey keep it.
 */
export const group: TPostProcessor = (items) => {
  const counts = new Map<string, number>();
  const keyOf = (item: TFeedItem) =>
    item.groupKey ?? (typeof item.data.trackerId === "string" ? `tracker:${item.data.trackerId}` : undefined);
  for (const item of items) {
    const key = keyOf(item);
    if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return items.map((item) => {
    const key = keyOf(item);
    return key && (counts.get(key) ?? 0) > 1 ? { ...item, groupKey: key } : item;
  });
};

/** Score desc, newest first on ties; a group sits at its best member's position, members together. */
export const order: TPostProcessor = (items) => {
  const sorted = [...items].sort(
    (a, b) =>
      (b.score ?? 0) - (a.score ?? 0) || b.timestamp.getTime() - a.timestamp.getTime() || a.id.localeCompare(b.id),
  );
  const members = new Map<string, TFeedItem[]>();
  for (const item of sorted) {
    if (item.groupKey) {
      const list = members.get(item.groupKey);
      if (list) list.push(item);
      else members.set(item.groupKey, [item]);
    }
  }
  const out: TFeedItem[] = [];
  for (const item of sorted) {
    if (!item.groupKey) out.push(item);
    else if (members.get(item.groupKey)?.[0] === item) out.push(...(members.get(item.groupKey) ?? []));
  }
  return out;
};

export const DEFAULT_POST_PROCESSORS: TPostProcessor[] = [dedup, scoreSignals, affinity, timeOfDay, group];

export function memoryWords(memory: string): string[] {
  return [...new Set(memory.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? [])].slice(0, 50);
}

/** Runs the rule-based processors (without the final ordering, which happens after the enhancement merge). */
export function postProcess(items: TFeedItem[], ctx: TPostContext, processors = DEFAULT_POST_PROCESSORS): TFeedItem[] {
  return processors.reduce((acc, p) => p(acc, ctx), items);
}

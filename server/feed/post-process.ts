import type { TFeedItem } from "@/contracts/feed-item";
import { AGENDA_DAY_TYPE } from "./agenda/agenda-card";
import { memoOfCard, type TCardMemo } from "./card-memo";

export type TPostContext = { now: Date /** lower-cased words from the user's memory notes */; memoryWords: string[] };
export type TPostProcessor = (items: TFeedItem[], ctx: TPostContext) => TFeedItem[];

const RELEVANCE_BONUS = { imminent: 0.5, upcoming: 0.2, ambient: 0 } as const;
const DEFAULT_URGENCY = 0.3;
const AFFINITY_BONUS = 0.15;

/** Same id twice (e.g. a source retried) → keep the newest. */
export const dedup: TPostProcessor = (items) => {
  const byId = new Map<string, TFeedItem>();
  for (const item of items) {
    const seen = byId.get(item.id);
    if (!seen || item.timestamp > seen.timestamp) byId.set(item.id, item);
  }
  return [...byId.values()];
};

/*
 * Each rule is a per-item function, used twice: by its processor below (composable, tested one by one) and by
 * `postProcess`'s single pass over the default list, which gives the same items with one copy per item instead
 * of one per rule (docs/design.md §6: the fast path runs on every feed load).
 */

function signalScore(item: TFeedItem): number {
  const urgency = item.signals?.urgency ?? DEFAULT_URGENCY;
  const bonus = item.signals ? RELEVANCE_BONUS[item.signals.timeRelevance] : 0;
  return urgency + bonus;
}

/** One case-insensitive pattern per list of memory words (the list is made once per load by `memoryWords`). */
const MEMORY_PATTERNS = new WeakMap<readonly string[], RegExp>();

function memoryPattern(words: readonly string[]): RegExp {
  let pattern = MEMORY_PATTERNS.get(words);
  if (!pattern) {
    pattern = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "iu");
    MEMORY_PATTERNS.set(words, pattern);
  }
  return pattern;
}

/**
 * Whether a string in the item's data mentions one of the memory words. The values are walked in place (no
 * serialisation of every card on every load, docs/design.md §6 fast path); keys are the sources' own names, not content.
 */
function mentionsMemory(item: TFeedItem, words: readonly string[]): boolean {
  const pattern = memoryPattern(words);
  const stack: unknown[] = [item.data];
  let budget = 10_000; // data is small and acyclic; a hostile shape stops here rather than walking forever
  while (stack.length > 0 && budget-- > 0) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (pattern.test(value)) return true;
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push(value[i]);
    } else if (value !== null && typeof value === "object") {
      for (const key in value) stack.push((value as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/**
 * `mentionsMemory` for a card as its builder made it, once per content and list of words: a keyed card keeps
 * the answer in its memo entry with the pattern it was computed for (card-memo.ts), so a repeat load of the
 * same card for the same memory walks nothing, and other words (another user, an edited note) walk again.
 */
function mentionsMemoryOnce(
  item: TFeedItem,
  memo: TCardMemo | undefined,
  words: readonly string[],
  source: string,
): boolean {
  if (!memo) return mentionsMemory(item, words);
  if (memo.affinity?.words === source) return memo.affinity.hit;
  const hit = mentionsMemory(item, words);
  memo.affinity = { words: source, hit };
  return hit;
}

/**
 * The time-of-day boost: weather in the morning. Calendar events are not scored: they sit in the agenda's day cards,
 * which the order places by day (docs/feed.md, "Order"). `hour` is read from ctx.now once per load, not per item.
 */
function timeOfDayDelta(item: TFeedItem, hour: number): number {
  return item.type === "weather-current" && hour >= 5 && hour < 10 ? 0.2 : 0;
}

function groupKeyOf(item: TFeedItem): string | undefined {
  return item.groupKey ?? (typeof item.data.trackerId === "string" ? `tracker:${item.data.trackerId}` : undefined);
}

function countKeys(keys: readonly (string | undefined)[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** Base score from the item's own signals. */
export const scoreSignals: TPostProcessor = (items) => items.map((item) => ({ ...item, score: signalScore(item) }));

/** Items whose data mentions something from the user's memory notes move up a little. */
export const affinity: TPostProcessor = (items, ctx) => {
  if (ctx.memoryWords.length === 0) return items;
  return items.map((item) =>
    mentionsMemory(item, ctx.memoryWords) ? { ...item, score: (item.score ?? 0) + AFFINITY_BONUS } : item,
  );
};

/** Weather matters most in the morning. */
export const timeOfDay: TPostProcessor = (items, ctx) => {
  const hour = ctx.now.getHours();
  return items.map((item) => {
    const delta = timeOfDayDelta(item, hour);
    return delta ? { ...item, score: (item.score ?? 0) + delta } : item;
  });
};

/**
 * Items of one tracker render as one group (several changes to the same tracker belong together).
 * Items already carrying a groupKey keep it.
 */
export const group: TPostProcessor = (items) => {
  const keys = items.map(groupKeyOf);
  const counts = countKeys(keys);
  return items.map((item, i) => {
    const key = keys[i];
    return key && (counts.get(key) ?? 0) > 1 ? { ...item, groupKey: key } : item;
  });
};

/** How long a material change counts as fresh for the order (docs/feed.md, "Order"). */
export const FRESH_CHANGE_MS = 48 * 3_600_000;

/**
 * The feed reads as a briefing of what matters next (docs/feed.md, "Order"): a briefing card pinned first (its
 * source registers itself), then the agenda — its days in date order, today first, with the weather right after
 * today's card — then material tracker changes of the last 48 hours, then the rest by score.
 */
function tierOf(item: TFeedItem, nowMs: number): number {
  // The briefing source's own card; a synthetic card the model calls a "briefing" is not pinned.
  if (item.sourceId === "briefing") return 0;
  if (item.type === AGENDA_DAY_TYPE || item.type === "calendar-loading" || item.type === "weather-current") return 1;
  if (
    item.type === "tracker-change" &&
    item.data.materiality === "material" &&
    nowMs - item.timestamp.getTime() <= FRESH_CHANGE_MS
  ) {
    return 2;
  }
  return 3;
}

/** Within the agenda: a day card by its day; the weather just after today's card; a loading card first. */
function agendaRank(item: TFeedItem, today: string | undefined): string {
  if (item.type === AGENDA_DAY_TYPE) return String(item.data.day ?? "");
  if (item.type === "weather-current") return `${today ?? "0"}~`;
  return "0";
}

/**
 * The tiers above, then score desc, newest first on ties; a group sits at its best member's position, members
 * together. The sort keys are read once per item, not once per comparison.
 */
export const order: TPostProcessor = (items, ctx) => {
  const n = items.length;
  const nowMs = ctx.now.getTime();
  const scores = new Float64Array(n);
  const times = new Float64Array(n);
  const tiers = new Uint8Array(n);
  const ranks = new Array<string>(n);
  const indices = new Array<number>(n);
  let today: string | undefined;
  for (let i = 0; i < n; i++) {
    const item = items[i] as TFeedItem;
    if (item.type === AGENDA_DAY_TYPE && item.data.today === true) today = String(item.data.day ?? "");
  }
  for (let i = 0; i < n; i++) {
    const item = items[i] as TFeedItem;
    scores[i] = item.score ?? 0;
    times[i] = item.timestamp.getTime();
    tiers[i] = tierOf(item, nowMs);
    ranks[i] = tiers[i] === 1 ? agendaRank(item, today) : "";
    indices[i] = i;
  }
  indices.sort(
    (a, b) =>
      (tiers[a] as number) - (tiers[b] as number) ||
      ((ranks[a] as string) < (ranks[b] as string) ? -1 : (ranks[a] as string) > (ranks[b] as string) ? 1 : 0) ||
      (scores[b] as number) - (scores[a] as number) ||
      (times[b] as number) - (times[a] as number) ||
      (items[a] as TFeedItem).id.localeCompare((items[b] as TFeedItem).id),
  );
  const sorted = indices.map((i) => items[i] as TFeedItem);
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

export const DEFAULT_POST_PROCESSORS: readonly TPostProcessor[] = Object.freeze([
  dedup,
  scoreSignals,
  affinity,
  timeOfDay,
  group,
]);

export function memoryWords(memory: string): string[] {
  return [...new Set(memory.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? [])].slice(0, 50);
}

/**
 * `DEFAULT_POST_PROCESSORS` in one pass: the same rules in the same order (the score is summed in the same
 * order, so it is the same number), each item copied once with its score and group key.
 */
function defaultPass(items: TFeedItem[], ctx: TPostContext): TFeedItem[] {
  const unique = dedup(items, ctx);
  const hour = ctx.now.getHours();
  const words = ctx.memoryWords;
  const source = words.length > 0 ? memoryPattern(words).source : null;
  const scores = new Float64Array(unique.length);
  const keys = new Array<string | undefined>(unique.length);
  unique.forEach((item, i) => {
    const memo = memoOfCard(item);
    let score = signalScore(item);
    if (source !== null && mentionsMemoryOnce(item, memo, words, source)) score += AFFINITY_BONUS;
    const delta = timeOfDayDelta(item, hour);
    if (delta) score += delta;
    scores[i] = score;
    // A keyed card's group key is its content's: kept as one string, hashed once (card-memo.ts, like its id).
    if (!memo) keys[i] = groupKeyOf(item);
    else {
      if (memo.groupKey === undefined) memo.groupKey = groupKeyOf(item) ?? null;
      keys[i] = memo.groupKey ?? undefined;
    }
  });
  const counts = countKeys(keys);
  return unique.map((item, i) => {
    const key = keys[i];
    const score = scores[i] as number;
    return key && (counts.get(key) ?? 0) > 1 ? { ...item, score, groupKey: key } : { ...item, score };
  });
}

/** Runs the rule-based processors (without the final ordering, which happens after the enhancement merge). */
export function postProcess(
  items: TFeedItem[],
  ctx: TPostContext,
  processors: readonly TPostProcessor[] = DEFAULT_POST_PROCESSORS,
): TFeedItem[] {
  if (processors === DEFAULT_POST_PROCESSORS) return defaultPass(items, ctx);
  return processors.reduce((acc, p) => p(acc, ctx), items);
}

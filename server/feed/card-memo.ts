import type { TFeedItem } from "@/contracts/feed-item";
import { LruMap } from "@/server/lib/lru-map";

/**
 * The fast path's per-card memo (docs/design.md §6: the fast path runs on every feed load, and a page load rebuilds the
 * same cards for the same decisions again and again). A source's builder names each card by a content key made
 * of everything the card is built from — the key changes exactly when the card does — and the per-card work that
 * depends on the card alone is kept under that key: the catalog check's verdict, and whether the card's data
 * mentions the user's memory words (kept with the words it was computed for). Per-load inputs (the time, the
 * stored enhancement) never reach the memo; what is kept is a verdict about content, not the card, and keys are
 * content-complete, so two users' cards share an entry only when they are the same card.
 */

/** Most entries per generation of the LRU (at most twice this are held; a busy feed is ≤ ~50 cards per user). */
export const CARD_MEMO_SIZE = 5000;

export type TCardMemo = {
  /** The card's id as first built: later builds of the same card use this string (see `keyCard`). */
  id: string | undefined;
  /** The catalog check's answer for this card's spec: null = valid, else the problem; undefined = not checked yet. */
  specProblem: string | null | undefined;
  /** Its group key from its content (`groupKeyOf` in post-process.ts): null = none; undefined = not asked yet. */
  groupKey: string | null | undefined;
  /** Whether the card's data mentions the memory words whose pattern source is `words`; undefined = not asked yet. */
  affinity: { words: string; hit: boolean } | undefined;
};

export const cardMemo = new LruMap<string, TCardMemo>(CARD_MEMO_SIZE);

/**
 * Each card's entry, by the exact object a builder returned: a copy (a post-processor's, a merge's) has none, so
 * nothing derived from a card can reach the memo under the key of the card it came from. The builder looks the
 * key up once (`keyCard`), among its own work; the fast path then reaches the entry without hashing the key.
 */
const ENTRIES = new WeakMap<TFeedItem, TCardMemo>();

type TKeyPart = string | number | boolean | null | undefined;

/**
 * One unambiguous string for a card's parts: strings are length-prefixed, so no choice of text (a summary ending
 * in what looks like the next part) makes two different cards one key.
 */
export function cardKey(kind: string, parts: readonly TKeyPart[]): string {
  let key = kind;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (typeof part === "string") key += `|s${part.length}:${part}`;
    else if (typeof part === "number") key += `|n${part}`;
    else if (typeof part === "boolean") key += part ? "|t" : "|f";
    else key += part === null ? "|z" : "|u";
  }
  return key;
}

const newMemo = (): TCardMemo => ({
  id: undefined,
  specProblem: undefined,
  groupKey: undefined,
  affinity: undefined,
});

/**
 * Names a card a builder just made by its content key (see `cardKey`) and finds its memo entry; returns the card.
 * The card takes the id string of its first build (equal text): a string the fast path has hashed and used as a
 * property key before, where a fresh copy of it would be hashed and looked up again by every id lookup of every
 * load (the dedup map, the enhancement's fills and hints: most of a warm load's time before).
 */
export function keyCard<T extends TFeedItem>(item: T, key: string): T {
  const memo = cardMemo.getOrSet(key, newMemo);
  if (memo.id === undefined) memo.id = item.id;
  else if (memo.id === item.id) item.id = memo.id;
  ENTRIES.set(item, memo);
  return item;
}

/** This card's memo entry, or undefined for a card its builder did not key (or a copy of one). */
export function memoOfCard(item: TFeedItem): TCardMemo | undefined {
  return ENTRIES.get(item);
}

/**
 * A set's capture holds its members sorted by key (docs/sets.md: the document hashes the same whatever the order), but
 * the source's order is what the refresh read: the first `maxEntities` are kept and the roll-up names members in it.
 * So the refresh stores beside the capture where each member sits in the sorted document, and a replay puts them back
 * (docs/replay.md). Sorted by code unit, stably, exactly as the readers sort their documents.
 */

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * For each item in the source's order, its index in the key-sorted list; undefined when the two orders are the same
 * (nothing to store).
 */
export function sourceOrder(items: readonly { key: string }[]): number[] | undefined {
  const sorted = items.map((_, i) => i).sort((a, b) => byCodeUnit(items[a]?.key ?? "", items[b]?.key ?? "") || a - b);
  const position = new Array<number>(items.length);
  sorted.forEach((index, at) => {
    position[index] = at;
  });
  return position.every((at, i) => at === i) ? undefined : position;
}

/**
 * The key-sorted members back in the source's order. An order that does not fit them (another length, not a
 * permutation) is ignored: the members stay in key order.
 */
export function inSourceOrder<T>(sorted: readonly T[], order: readonly number[] | undefined): T[] {
  if (!order || order.length !== sorted.length) return [...sorted];
  const seen = new Set<number>();
  const out: T[] = [];
  for (const at of order) {
    if (!Number.isInteger(at) || at < 0 || at >= sorted.length || seen.has(at)) return [...sorted];
    seen.add(at);
    out.push(sorted[at] as T);
  }
  return out;
}

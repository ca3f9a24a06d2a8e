import type { TPrevEntity, TSetDiff } from "./set-types";

/**
 * The entities after a diff is accepted: what the next read is diffed against. Pure, so the write that stores it
 * (and the tests that replay many reads) share one meaning of every outcome. `at` (ISO 8601) stamps items gone now.
 */
export function applySetDiff(
  previous: ReadonlyMap<string, TPrevEntity>,
  diff: TSetDiff,
  at: string,
): Map<string, TPrevEntity> {
  const next = new Map(previous);
  const present = (item: { key: string; values: TPrevEntity["values"]; hash: string }) =>
    next.set(item.key, { values: item.values, hash: item.hash, missingRuns: 0, goneAt: null });
  for (const item of diff.appeared) present(item);
  for (const item of diff.reappeared) present(item);
  for (const item of diff.changed) present(item);
  for (const item of diff.rehashed) present(item);
  for (const key of diff.recovered) {
    const prev = next.get(key);
    if (prev) next.set(key, { ...prev, missingRuns: 0 });
  }
  for (const item of diff.missing) {
    const prev = next.get(item.key);
    if (prev) next.set(item.key, { ...prev, missingRuns: item.missingRuns });
  }
  for (const item of diff.disappeared) {
    const prev = next.get(item.key);
    if (prev) next.set(item.key, { ...prev, missingRuns: item.missingRuns, goneAt: at });
  }
  return next;
}

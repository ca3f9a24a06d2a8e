import { hashCanonical } from "../definition/hash-canonical";
import { comparableValues } from "./item-values";
import type { TItemValues } from "./set-types";

/**
 * sha256 (hex) of an item's values as they compare (keys sorted by canonicalJson, whitespace collapsed, empty values
 * left out), so two reads of the same item hash the same whatever order or wrapping the source used.
 */
export function hashItemValues(values: TItemValues): string {
  return hashCanonical(comparableValues(values));
}

/**
 * One hash for the whole set: its items' keys and hashes sorted by key (the first of a duplicated key wins), so a
 * reordered listing hashes the same and an unchanged set is recognised with one comparison — an unchanged set costs
 * what an unchanged page costs (docs/design.md §4).
 */
export function hashSet(items: readonly { key: string; hash: string }[]): string {
  const byKey = new Map<string, string>();
  for (const item of items) if (!byKey.has(item.key)) byKey.set(item.key, item.hash);
  const pairs = [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return hashCanonical({ set: pairs });
}

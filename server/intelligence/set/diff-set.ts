import { SET_POLICY_LIMITS } from "@/contracts/definition/set-rule-schema";
import { hashSet } from "./hash-set";
import { comparableText } from "./item-values";
import type {
  TChangedItem,
  TCurrentItem,
  TFieldChange,
  TItemValues,
  TOverCap,
  TPrevEntity,
  TSetDiff,
  TSetDiffPolicy,
} from "./set-types";

/**
 * Diffs one read of a set against the entities the timeline holds (docs/design.md §4 "Sets"). Items are matched by
 * key, never position, so a reordered listing changes nothing. An item counts as gone only after `missingAfter` reads
 * in a row without it — one flaky read is no churn — and is reported gone once; a missing item that is back before
 * that just has its streak reset (`recovered`), and a gone one that is back is `reappeared`. The first of a duplicated
 * key wins; past `maxEntities` the rest is not read and said so (`overCap`), and known entities among it are still
 * listed, so they are neither missing nor changed.
 */
export function diffSet(
  previous: ReadonlyMap<string, TPrevEntity>,
  current: readonly TCurrentItem[],
  policy: TSetDiffPolicy,
): TSetDiff {
  const { distinct, duplicates } = firstOfEachKey(current);
  const kept = distinct.slice(0, policy.maxEntities);
  const beyond = distinct.slice(policy.maxEntities);
  const beyondKeys = new Set(beyond.map((item) => item.key));
  const keptKeys = new Set(kept.map((item) => item.key));

  const diff: TSetDiff = {
    hash: hashSet(kept),
    appeared: [],
    reappeared: [],
    changed: [],
    unchanged: 0,
    rehashed: [],
    missing: [],
    disappeared: [],
    recovered: [],
    duplicates,
    overCap: null,
  };

  for (const item of kept) {
    const prev = previous.get(item.key);
    if (!prev) {
      diff.appeared.push({ key: item.key, values: item.values, hash: item.hash });
      continue;
    }
    if (prev.goneAt !== null) {
      diff.reappeared.push({ key: item.key, values: item.values, hash: item.hash, goneAt: prev.goneAt });
      continue;
    }
    if (prev.missingRuns > 0) diff.recovered.push(item.key);
    if (prev.hash === item.hash) {
      diff.unchanged++;
      continue;
    }
    const changes = fieldChanges(prev.values, item.values);
    if (changes.length === 0) {
      diff.unchanged++;
      diff.rehashed.push({ key: item.key, values: item.values, hash: item.hash });
      continue;
    }
    const changed: TChangedItem = {
      key: item.key,
      before: prev.values,
      values: item.values,
      hash: item.hash,
      changes,
    };
    diff.changed.push(changed);
  }

  const droppedKnown: string[] = [];
  for (const [key, prev] of previous) {
    if (keptKeys.has(key)) continue;
    if (beyondKeys.has(key)) {
      // Still listed, only past the cap: not read, so not judged; its missing streak (if any) ends.
      if (prev.goneAt === null) {
        droppedKnown.push(key);
        if (prev.missingRuns > 0) diff.recovered.push(key);
      }
      continue;
    }
    if (prev.goneAt !== null) continue; // already gone, and reported when it went
    const missingRuns = prev.missingRuns + 1;
    if (missingRuns >= policy.missingAfter) diff.disappeared.push({ key, missingRuns, values: prev.values });
    else diff.missing.push({ key, missingRuns });
  }

  if (beyond.length > 0) diff.overCap = overCap(distinct.length, policy.maxEntities, droppedKnown);
  return diff;
}

function firstOfEachKey(current: readonly TCurrentItem[]): { distinct: TCurrentItem[]; duplicates: number } {
  const seen = new Set<string>();
  const distinct: TCurrentItem[] = [];
  for (const item of current) {
    if (seen.has(item.key)) continue;
    seen.add(item.key);
    distinct.push(item);
  }
  return { distinct, duplicates: current.length - distinct.length };
}

/** The fields whose values differ as they compare (item-values.ts), in field-name order; a field not shown is null. */
export function fieldChanges(before: TItemValues, after: TItemValues): TFieldChange[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changes: TFieldChange[] = [];
  for (const field of fields) {
    const from = before[field] ?? null;
    const to = after[field] ?? null;
    if (comparableText(from) !== comparableText(to)) changes.push({ field, from, to });
  }
  return changes;
}

function overCap(listed: number, kept: number, droppedKnown: string[]): TOverCap {
  const dropped = listed - kept;
  const raise =
    kept < SET_POLICY_LIMITS.maxEntities
      ? `raise the cap in the tracker's set policy, maxEntities, up to ${SET_POLICY_LIMITS.maxEntities.toLocaleString("en-US")}`
      : "the most a tracker can keep";
  return {
    listed,
    kept,
    dropped,
    droppedKnown,
    message: `The page lists ${listed.toLocaleString("en-US")} items; this tracker keeps the first ${kept.toLocaleString("en-US")} (${raise}).`,
  };
}

import type { TRecord, TRecordValue, TTrackerDefinition } from "../definition";
import { applyExtractors } from "../fill/apply-extractors";
import { hashItemValues } from "./hash-set";
import type { TCurrentItem, TItemValues, TPrevEntity } from "./set-types";

/** A member's value as the set's diff and rules read it: money as "<amount> <currency>", lists joined. */
export function valueText(value: TRecordValue | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "object") return `${value.amount} ${value.currency}`;
  return String(value);
}

/** A member's record as text values, one per definition field (what diffSet, judgeSet and the roll-up read). */
export const memberValues = (def: TTrackerDefinition, record: Readonly<Record<string, unknown>>): TItemValues =>
  Object.fromEntries(def.fields.map((f) => [f.name, valueText(record[f.name] as TRecordValue | undefined)]));

/**
 * One read of a set, member by member (docs/sets.md "How the refresh runs a set"): each member's fields by the
 * definition's extractors over its own values (the first of a duplicated key wins), and the items diffSet compares,
 * in the source's order. The refresh and the replay read members through this one function.
 */
export async function readMembers(
  def: TTrackerDefinition,
  items: readonly { key: string; values: Record<string, unknown> }[],
): Promise<{ records: Map<string, TRecord>; current: TCurrentItem[] }> {
  const records = new Map<string, TRecord>();
  for (const item of items) {
    if (records.has(item.key)) continue;
    records.set(item.key, (await applyExtractors(def, { json: item.values })).values);
  }
  const current = [...records].map(([key, record]) => {
    const values = memberValues(def, record);
    return { key, values, hash: hashItemValues(values) };
  });
  return { records, current };
}

/**
 * The known members in key order, as diffSet reads them: the members that disappeared in one read are then named in
 * the same order by the refresh (whatever order the database returned them in) and by a replay.
 */
export function inKeyOrder(entries: Iterable<readonly [string, TPrevEntity]>): Map<string, TPrevEntity> {
  return new Map([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

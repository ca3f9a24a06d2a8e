/**
 * The shapes of a set refresh (docs/design.md §4 "Sets"): one entity per item, keyed by its identity (never its
 * position), each with the same locked fields. Values are the item's field values as text (null: not shown).
 */

/** An item's field values: field name → its text, null when the source shows none. */
export type TItemValues = Record<string, string | null>;

/** What the timeline holds of one known entity of the set. */
export type TPrevEntity = {
  values: TItemValues;
  /** hashItemValues(values) when it was last written. */
  hash: string;
  /** Reads in a row the item has been missing from (0 when it was present last time). */
  missingRuns: number;
  /** When it was judged gone (ISO 8601); null while it is in the set. */
  goneAt: string | null;
};

/** One item of this read, in the source's order. */
export type TCurrentItem = { key: string; values: TItemValues; hash: string };

/** One field that moved on an item. */
export type TFieldChange = { field: string; from: string | null; to: string | null };

export type TChangedItem = {
  key: string;
  /** The values before (the timeline's) and now. */
  before: TItemValues;
  values: TItemValues;
  hash: string;
  /** The fields that moved, in field-name order. */
  changes: TFieldChange[];
};

export type TAppearedItem = { key: string; values: TItemValues; hash: string };
export type TReappearedItem = TAppearedItem & { goneAt: string };
/** Missing this read: missingRuns is the new streak (below missingAfter, so not gone yet). */
export type TMissingItem = { key: string; missingRuns: number };
/** Gone this read: missing missingAfter reads in a row. values are the last ones read. */
export type TDisappearedItem = { key: string; missingRuns: number; values: TItemValues };

export type TOverCap = {
  /** Distinct items the source listed. */
  listed: number;
  /** The cap (maxEntities): the first `kept` items were read. */
  kept: number;
  dropped: number;
  /** Known, not-gone entities among the dropped ones: still listed, so neither missing nor changed; left as they are. */
  droppedKnown: string[];
  message: string;
};

export type TSetDiff = {
  /** hashSet of the items kept: equal to the stored one → the set did not change. */
  hash: string;
  /** New keys, in the source's order. */
  appeared: TAppearedItem[];
  /** Keys that were gone and are back, in the source's order. */
  reappeared: TReappearedItem[];
  /** Known items whose values moved, in the source's order. */
  changed: TChangedItem[];
  /** Known items present and the same (a moved hash with equal values counts here and in `rehashed`). */
  unchanged: number;
  /** Unchanged items whose stored hash differs from this read's (written with another hash function). */
  rehashed: TAppearedItem[];
  /** Absent this read, not gone yet. */
  missing: TMissingItem[];
  /** Absent for missingAfter reads in a row: gone now, reported once. */
  disappeared: TDisappearedItem[];
  /** Keys whose missing streak ended this read (present again before they were gone): their missingRuns is 0 again. */
  recovered: string[];
  /** Later duplicates of a key in this read (the first one wins). */
  duplicates: number;
  overCap: TOverCap | null;
};

/** What diffing needs of the set policy (contracts/definition/set-rule-schema.ts). */
export type TSetDiffPolicy = { missingAfter: number; maxEntities: number };

import { isNumericFieldType } from "@/contracts/definition/field-schema";
import { formatFieldValue, formatRelativeChange, type TValueFormat } from "@/contracts/definition/format-value";
import { itemName, NAME_FIELDS, numericPair, readNumber } from "./item-values";
import { shownValue } from "./name-list";
import type { TChangedItem, TFieldChange, TSetDiff } from "./set-types";

export type TSummarizeSetOptions = {
  /** The fields an item is called by (default name, then title); the key when it shows none. */
  nameFields?: readonly string[];
  /** The definition's fields by name: numbers and money then read as people read them ("$4.20", "1,200 units"). */
  formats?: Readonly<Record<string, TValueFormat>>;
  /** How many changed items are named (default 3); the rest are counted. */
  maxNamed?: number;
  /** When given, items it calls material are named first (the others keep the source's order). */
  isMaterial?: (key: string) => boolean;
};

/**
 * One deterministic line for a feed card and a notification (docs/design.md §6: sources own the text, the model only
 * fills slots): counts first, then up to three named changes, the rest counted —
 * "2 new, 1 gone; Blend & Co price $4.20 → $4.50 (+7.1%); and 2 more". Missing items not gone yet are no news (an item
 * is gone only after missingAfter reads without it), so they are not in the line. Nothing to say → "No change".
 */
export function summarizeSet(diff: TSetDiff, opts: TSummarizeSetOptions = {}): string {
  const counts: string[] = [];
  if (diff.appeared.length > 0) counts.push(`${diff.appeared.length.toLocaleString("en-US")} new`);
  if (diff.reappeared.length > 0) counts.push(`${diff.reappeared.length.toLocaleString("en-US")} back`);
  if (diff.disappeared.length > 0) counts.push(`${diff.disappeared.length.toLocaleString("en-US")} gone`);

  const maxNamed = Math.max(0, opts.maxNamed ?? 3);
  const isMaterial = opts.isMaterial;
  const ordered = isMaterial
    ? [...diff.changed.filter((c) => isMaterial(c.key)), ...diff.changed.filter((c) => !isMaterial(c.key))]
    : diff.changed;
  const named = ordered.slice(0, maxNamed).map((item) => describeItem(item, opts));
  const more = diff.changed.length - named.length;

  const parts: string[] = [];
  if (counts.length > 0) parts.push(counts.join(", "));
  parts.push(...named);
  if (more > 0)
    parts.push(
      named.length > 0 ? `and ${more.toLocaleString("en-US")} more` : `${more.toLocaleString("en-US")} changed`,
    );
  return parts.length > 0 ? parts.join("; ") : "No change";
}

/** "Blend & Co price $4.20 → $4.50 (+7.1%), rating 4.5 → 4.6 (+2.2%)". */
function describeItem(item: TChangedItem, opts: TSummarizeSetOptions): string {
  const name = itemName(item.key, item.values, opts.nameFields ?? NAME_FIELDS);
  return `${name} ${item.changes.map((change) => describeChange(change, opts.formats?.[change.field])).join(", ")}`;
}

function describeChange(change: TFieldChange, format: TValueFormat | undefined): string {
  const arrow = `${shown(change.from, format)} → ${shown(change.to, format)}`;
  // A field the definition types as text ("Plan 2" → "Plan 3") has no percentage; untyped, the numbers in it decide.
  const pair = format && !isNumericFieldType(format.type) ? null : numericPair(change.from, change.to);
  const relative = pair ? formatRelativeChange(pair.from, pair.to) : null;
  return `${change.field} ${arrow}${relative ? ` (${relative})` : ""}`;
}

/** The value's own text, or, for a numeric field with its format, the number as people read it. */
function shown(value: string | null, format: TValueFormat | undefined): string {
  if (format && isNumericFieldType(format.type)) {
    const number = readNumber(value);
    if (number) {
      const currency = number.currency ?? format.currency;
      return formatFieldValue(number.amount, { ...format, ...(currency ? { currency } : {}) });
    }
  }
  return shownValue(value);
}

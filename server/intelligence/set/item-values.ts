import { collapseWhitespace } from "../diff/normalise-value";
import { parseMoneyText } from "../fill/parse-number-text";
import type { TItemValues } from "./set-types";

/**
 * How an item's text values compare (the same way diffRecords compares a page's strings, server/intelligence/diff):
 * whitespace collapsed, and an empty text is no value, so a re-wrapped line is not a change.
 */
export function comparableText(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = collapseWhitespace(value);
  return text === "" ? null : text;
}

/** The values as they compare: texts collapsed, empty and null values left out. */
export function comparableValues(values: TItemValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, value] of Object.entries(values)) {
    const text = comparableText(value);
    if (text !== null) out[field] = text;
  }
  return out;
}

/** The fields people call an item by, in order of preference. */
export const NAME_FIELDS = ["name", "title"] as const;

/** What people call the item: its name or title when it shows one, else its key. */
export function itemName(key: string, values: TItemValues, nameFields: readonly string[] = NAME_FIELDS): string {
  for (const field of nameFields) {
    const text = comparableText(values[field]);
    if (text !== null) return text;
  }
  return key;
}

/**
 * The number a value's text carries, read by the one price reader (server/lib/parse-price.ts via parseMoneyText):
 * "$4.20" → 4.2 USD, "1.299,00 €" → 1299 EUR, "4.5" → 4.5 with no currency. Null when it carries none, or several.
 */
export function readNumber(value: string | null | undefined): { amount: number; currency: string | null } | null {
  const text = comparableText(value);
  if (text === null) return null;
  const parsed = parseMoneyText(text);
  if (!parsed || !Number.isFinite(parsed.amount)) return null;
  return { amount: parsed.amount, currency: parsed.currency };
}

/** Both values as numbers in the same currency (a currency switch compares nothing, as in evaluateDeltas), or null. */
export function numericPair(from: string | null, to: string | null): { from: number; to: number } | null {
  const a = readNumber(from);
  const b = readNumber(to);
  if (!a || !b || a.currency !== b.currency) return null;
  return { from: a.amount, to: b.amount };
}

/**
 * A move between two values as a signed fraction of the old one (numericPair). From 0 any move is infinite. Rounded to
 * 12 significant digits so float noise never flips a verdict at a threshold (4.50 → 4.05 is exactly −10 %).
 */
export function relativeMove(from: string | null, to: string | null): number | null {
  const pair = numericPair(from, to);
  if (!pair) return null;
  const delta = round(pair.to - pair.from);
  if (pair.from === 0) return delta === 0 ? 0 : delta > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  return round(delta / Math.abs(pair.from));
}

export function round(value: number): number {
  return Number(value.toPrecision(12));
}

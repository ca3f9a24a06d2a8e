import type { TField } from "../definition/field-schema";
import { isMoney, type TRecordValue } from "../definition/record-types";

/**
 * The comparison form of a value: numbers rounded to 12 significant digits (float noise is not a
 * change), -0 → 0, strings trimmed and whitespace-collapsed ("" → null), lists as sorted sets of
 * collapsed strings ([] → null: "none listed" and "not shown" are not worth a change), money as
 * amount + upper-case currency. Returns a string key so equality is a plain ===.
 */
export function comparisonKey(field: Pick<TField, "type">, value: TRecordValue | undefined): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number") return `n:${normaliseNumber(value)}`;
  if (typeof value === "boolean") return `b:${value}`;
  if (typeof value === "string") {
    const text = collapseWhitespace(value);
    return text === "" ? "null" : `s:${JSON.stringify(text)}`;
  }
  if (Array.isArray(value)) {
    const items = [...new Set(value.map(collapseWhitespace).filter((v) => v !== ""))].sort();
    return items.length === 0 ? "null" : `l:${JSON.stringify(items)}`;
  }
  if (isMoney(value)) return `m:${normaliseNumber(value.amount)}:${value.currency.trim().toUpperCase()}`;
  // Unknown shapes (a record written under an older definition): compare structurally.
  return `j:${field.type}:${JSON.stringify(value)}`;
}

export function normaliseNumber(value: number): number {
  const rounded = Number(value.toPrecision(12));
  return Object.is(rounded, -0) ? 0 : rounded;
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The key notable signals are compared by: case-, whitespace- and trailing-punctuation-insensitive. */
export function signalKey(signal: string): string {
  return collapseWhitespace(signal)
    .toLowerCase()
    .replace(/[.!…]+$/, "");
}

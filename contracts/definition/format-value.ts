import { formatNumber } from "./format-number";

/**
 * Field values for people (the trackers list, and anywhere a recorded value is shown): money by its currency,
 * integers as integers, decimals as the definition types them, relative changes as rounded percentages, field
 * names as labels. One fixed locale, so the server's first paint and the browser's hydration render the same text
 * whatever the visitor's language (time-zones.spec.ts browses in German and fails on a mismatch).
 */

const LOCALE = "en-US";

/** What formatting needs from a definition field (a subset of the field schema; client-safe). */
export type TValueFormat = {
  type: "number" | "integer" | "string" | "boolean" | "enum" | "string_list" | "money";
  unit?: string | undefined;
  currency?: string | undefined;
};

const numberFormats = new Map<string, Intl.NumberFormat>();
function numberFormat(key: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(LOCALE, options);
    numberFormats.set(key, format);
  }
  return format;
}

/** "units_left" → "Units left". */
export function fieldLabel(name: string): string {
  const words = name.replace(/_+/g, " ").trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : name;
}

/** 39.5 USD → "$39.50"; an unknown currency code falls back to "39.50 XYZ". */
export function formatMoney(amount: number, currency: string): string {
  try {
    return numberFormat(`money:${currency}`, { style: "currency", currency }).format(amount);
  } catch {
    return `${numberFormat("fixed2", { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount)} ${currency}`;
  }
}

/** A decimal: at least one decimal place (4.0 stays "4.0"), at most two (four below 1), grouped thousands. */
export function formatDecimal(value: number): string {
  const small = Math.abs(value) < 1 && value !== 0;
  return numberFormat(small ? "decimal-small" : "decimal", {
    minimumFractionDigits: 1,
    maximumFractionDigits: small ? 4 : 2,
  }).format(value);
}

/** A whole number with grouped thousands; a non-integer is rounded (the definition says integer). */
export function formatInteger(value: number): string {
  return numberFormat("integer", { maximumFractionDigits: 0 }).format(value);
}

/** A relative change, rounded: "+12%", "−9.8%", "+0.4%"; a change from 0 has no percentage (null). */
export function formatRelativeChange(from: number, to: number): string | null {
  if (from === 0 || !Number.isFinite(from) || !Number.isFinite(to)) return null;
  const percent = ((to - from) / Math.abs(from)) * 100;
  const digits = Math.abs(percent) >= 10 ? 0 : 1;
  const rounded = Number(percent.toFixed(digits));
  if (rounded === 0) return "±0%";
  const text = formatNumber(Math.abs(rounded));
  return `${rounded > 0 ? "+" : "−"}${text}%`;
}

function isMoney(value: unknown): value is { amount: number; currency: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { amount?: unknown }).amount === "number" &&
    typeof (value as { currency?: unknown }).currency === "string"
  );
}

/** The number a value carries (money's amount), or null. */
export function numericValue(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (isMoney(value)) return value.amount;
  return null;
}

/**
 * One recorded value as people read it. `format` is the definition's field (type, unit, currency) when known;
 * without it the value's own shape decides (money objects still show as money).
 */
export function formatFieldValue(value: unknown, format?: TValueFormat): string {
  if (value === null || value === undefined || value === "") return "—";
  let text: string;
  if (isMoney(value)) text = formatMoney(value.amount, value.currency);
  else if (typeof value === "number") {
    if (format?.type === "money" && format.currency) text = formatMoney(value, format.currency);
    else if (format?.type === "integer" || (!format && Number.isInteger(value))) text = formatInteger(value);
    else text = formatDecimal(value);
  } else if (typeof value === "boolean") text = value ? "yes" : "no";
  else if (Array.isArray(value)) text = value.length ? value.map(String).join(", ") : "—";
  else if (typeof value === "object") text = JSON.stringify(value);
  else text = String(value);
  const unit = format?.unit && typeof value === "number" && format.type !== "money" ? ` ${format.unit}` : "";
  return `${text}${unit}`;
}

/** "$39.50 → $35.00 (−11%)"; the percentage only for numbers (money included). */
export function formatChange(from: unknown, to: unknown, format?: TValueFormat): string {
  const arrow = `${formatFieldValue(from, format)} → ${formatFieldValue(to, format)}`;
  const a = numericValue(from);
  const b = numericValue(to);
  const relative = a !== null && b !== null ? formatRelativeChange(a, b) : null;
  return relative ? `${arrow} (${relative})` : arrow;
}

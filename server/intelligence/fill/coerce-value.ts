import type { TField } from "../definition/field-schema";
import type { TMoney, TRecordValue } from "../definition/record-types";
import { parseMoneyText, parseNumberText } from "./parse-number-text";

export type TCoerceResult = { ok: true; value: TRecordValue } | { ok: false; reason: string };

const MAX_STRING_CHARS = 2_000;
const MAX_LIST_ITEMS = 100;

/**
 * Converts an extracted raw value (JSON scalar, element text, regex capture) to the field's type.
 * Never guesses: booleans accept only true/false/yes/no, enums only a listed value (case-insensitive),
 * numbers only a single unambiguous number. null/undefined/"" → null (absent), not an error.
 */
export function coerceValue(field: TField, raw: unknown): TCoerceResult {
  if (raw === null || raw === undefined) return { ok: true, value: null };
  if (typeof raw === "string" && collapse(raw) === "") return { ok: true, value: null };

  switch (field.type) {
    case "number":
    case "integer": {
      const value = numberFrom(raw);
      if (value === null) return fail(`expected a number, got ${preview(raw)}`);
      if (field.type === "integer" && !Number.isInteger(value))
        return fail(`expected a whole number, got ${preview(raw)}`);
      return { ok: true, value };
    }
    case "money": {
      const value = moneyFrom(raw, field.currency ?? "USD");
      return value ? { ok: true, value } : fail(`expected an amount of money, got ${preview(raw)}`);
    }
    case "boolean": {
      if (typeof raw === "boolean") return { ok: true, value: raw };
      if (typeof raw === "string") {
        const word = collapse(raw).toLowerCase();
        if (word === "true" || word === "yes") return { ok: true, value: true };
        if (word === "false" || word === "no") return { ok: true, value: false };
      }
      return fail(`expected true/false/yes/no, got ${preview(raw)}`);
    }
    case "enum": {
      if (typeof raw !== "string")
        return fail(`expected one of ${(field.enumValues ?? []).join(", ")}, got ${preview(raw)}`);
      const wanted = collapse(raw).toLowerCase();
      const match = field.enumValues?.find((v) => collapse(v).toLowerCase() === wanted);
      return match !== undefined
        ? { ok: true, value: match }
        : fail(`expected one of ${(field.enumValues ?? []).join(", ")}, got ${preview(raw)}`);
    }
    case "string": {
      if (typeof raw === "string") return { ok: true, value: collapse(raw).slice(0, MAX_STRING_CHARS) };
      if (typeof raw === "number" || typeof raw === "boolean") return { ok: true, value: String(raw) };
      return fail(`expected text, got ${preview(raw)}`);
    }
    case "string_list": {
      const items = Array.isArray(raw) ? raw : [raw];
      const out: string[] = [];
      for (const item of items) {
        if (typeof item === "string" || typeof item === "number" || typeof item === "boolean") {
          const text = collapse(String(item));
          if (text) out.push(text.slice(0, MAX_STRING_CHARS));
        } else if (item !== null && item !== undefined) {
          return fail(`expected a list of texts, got ${preview(raw)}`);
        }
      }
      return { ok: true, value: out.slice(0, MAX_LIST_ITEMS) };
    }
  }
}

function numberFrom(raw: unknown): number | null {
  if (typeof raw === "number") return Number.isFinite(raw) ? raw : null;
  if (typeof raw === "string") return parseNumberText(raw);
  return null;
}

function moneyFrom(raw: unknown, fieldCurrency: string): TMoney | null {
  if (typeof raw === "number") return Number.isFinite(raw) ? { amount: raw, currency: fieldCurrency } : null;
  if (typeof raw === "string") {
    // One price reader for fill and scrape (server/lib/parse-price.ts): the currency the text shows,
    // "$"/"kr"/"¥" resolved against the field's currency, else the field's; a range reads as its lower bound.
    const money = parseMoneyText(raw, fieldCurrency);
    return money ? { amount: money.amount, currency: money.currency ?? fieldCurrency } : null;
  }
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    // JSON shapes seen in the wild: {amount, currency}, {value, currency}, JSON-LD {price, priceCurrency}.
    const o = raw as Record<string, unknown>;
    const amountRaw = o.amount ?? o.value ?? o.price;
    const amount = numberFrom(amountRaw);
    if (amount === null) return null;
    const code = o.currency ?? o.currencyCode ?? o.priceCurrency;
    const currency =
      typeof code === "string" && /^[A-Za-z]{3}$/.test(code.trim()) ? code.trim().toUpperCase() : fieldCurrency;
    return { amount, currency };
  }
  return null;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function fail(reason: string): TCoerceResult {
  return { ok: false, reason };
}

function preview(raw: unknown): string {
  const text = typeof raw === "string" ? JSON.stringify(raw) : (JSON.stringify(raw) ?? String(raw));
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

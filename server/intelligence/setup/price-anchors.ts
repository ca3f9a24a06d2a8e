import type { TExtractor } from "../definition/field-schema";
import { compileRegex, MAX_REGEX_TEXT_CHARS } from "../definition/regex-safety";
import { resolveJsonPointer } from "../fill/json-pointer";
import { parseMoneyText } from "../fill/parse-number-text";
import { headingLine, type TTextPrice } from "./price-roles";

/**
 * Extractors that find a price by what it is, not by where it is in the page's list of prices
 * (docs/intelligence.md). Ranked: the product's structured offer, a CSS element unique to the price, a label in
 * front of it ("Team plan $99"), the product heading above it, and — only when nothing else holds — its
 * position among the text's prices (`/prices/N`), which moves whenever a promotion or an ad adds a
 * price above it. Every anchor is checked against the sample before it is offered: it must read the
 * same amount there.
 */

export type TAnchorKind = "offer" | "css" | "label" | "heading" | "position";

export type TAnchor = {
  kind: TAnchorKind;
  /** Lower is better (see ANCHOR_RANK). */
  rank: number;
  extractor: TExtractor;
};

/** Best first. CSS anchors that are unique on the page rank above labels; a non-unique one below headings. */
export const ANCHOR_RANK = {
  offer: 0,
  cssId: 1,
  cssScoped: 2,
  cssUnique: 3,
  label: 4,
  cssAfterHeading: 5,
  heading: 6,
  cssFirst: 7,
  position: 9,
} as const;

/** Escapes text for a pattern (JavaScript syntax, as the RE2 translation expects); runs of spaces match any whitespace. */
export function escapeForPattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&").replace(/\s+/g, "\\s+");
}

const NUMBER = String.raw`\d(?:[\d.,'\u00a0\u202f ]*\d)?`;

/**
 * A pattern for a price written the way the sample writes it: its currency token before and/or after
 * a number in any notation ("49,90 €" → `\d(…)?\s*€`). Null for ranges and texts without digits.
 */
export function pricePattern(text: string): string | null {
  const digits = [...text.matchAll(/\d/g)];
  const first = digits[0]?.index;
  const last = digits.at(-1)?.index;
  if (first === undefined || last === undefined) return null;
  const middle = text.slice(first, last + 1);
  if (/[^\d.,'\u00a0\u202f ]/.test(middle)) return null; // a range or two numbers
  const prefix = text.slice(0, first).trim();
  const suffix = text.slice(last + 1).trim();
  if (!prefix && !suffix) return null;
  return `${prefix ? `${escapeForPattern(prefix)}\\s*` : ""}${NUMBER}${suffix ? `\\s*${escapeForPattern(suffix)}` : ""}`;
}

/** The first capture of a pattern on the text and how many times it matches (at most 2 counted). */
export function runPattern(pattern: string, flags: string, text: string): { value: string | null; count: number } {
  const compiled = compileRegex(pattern, flags);
  if (!compiled.ok) return { value: null, count: 0 };
  const capped = text.slice(0, MAX_REGEX_TEXT_CHARS);
  let count = 0;
  let value: string | null = null;
  for (const m of compiled.regex.matchAll(capped)) {
    if (count === 0) value = m[1] ?? null;
    if (++count >= 2) break;
  }
  return { value, count };
}

/** Does this text read as exactly the price (same amount; same currency when both name one)? */
export function readsAs(text: string | null | undefined, price: { amount: number; currency: string | null }): boolean {
  if (typeof text !== "string") return false;
  const money = parseMoneyText(text, price.currency ?? undefined);
  if (!money || Math.abs(money.amount - price.amount) > 1e-9) return false;
  return !price.currency || !money.currency || money.currency === price.currency;
}

/** "Team plan $99 per month" → /Team\s+plan\s*(\$\s*\d…)/ when the label appears once in the text. */
export function labelAnchor(mainText: string, price: TTextPrice): TAnchor | null {
  const number = pricePattern(price.text);
  if (!number || !price.label) return null;
  const pattern = `${escapeForPattern(price.label)}\\s*(${number})`;
  const run = runPattern(pattern, "", mainText);
  if (run.count !== 1 || !readsAs(run.value, price)) return null;
  return { kind: "label", rank: ANCHOR_RANK.label, extractor: { kind: "regex", pattern } };
}

const MAX_HEADING_GAP = 6;
const MAX_HEADING_CHARS = 120;

/** The first price under the product's heading: /^Heading$\n(lines)?…(price)/m, when that is this price. */
export function headingAnchor(mainText: string, price: TTextPrice, heading: string | null): TAnchor | null {
  const number = pricePattern(price.text);
  if (!number || !heading || heading.length > MAX_HEADING_CHARS) return null;
  const at = headingLine(mainText, heading);
  if (at < 0 || price.line <= at || price.line - at > MAX_HEADING_GAP) return null;
  // "<del>$199.99</del> $129.99": the old price in front of it may be there or not (the sale may end).
  const old = price.after?.role === "old" ? pricePattern(price.after.text) : null;
  const skipOld = old ? `(?:${old}[^\\d\\n]{0,12})?` : "";
  const pattern = `^${escapeForPattern(heading.replace(/\s+/g, " ").trim())}\\n(?:[^\\n]*\\n){0,${price.line - at}}?[^\\n]*?${skipOld}(${number})`;
  const run = runPattern(pattern, "m", mainText);
  if (run.count !== 1 || !readsAs(run.value, price)) return null;
  return { kind: "heading", rank: ANCHOR_RANK.heading, extractor: { kind: "regex", pattern, flags: "m" } };
}

/** Last resort: the price's position among the document's detected prices. */
export function positionAnchor(document: unknown, price: TTextPrice): TAnchor | null {
  const pointer = `/prices/${price.index}/amount`;
  const hit = resolveJsonPointer(document, pointer);
  if (!hit.found || typeof hit.value !== "number" || Math.abs(hit.value - price.amount) > 1e-9) return null;
  return { kind: "position", rank: ANCHOR_RANK.position, extractor: { kind: "json_pointer", pointer } };
}

/** Is this extractor a position in the free-text price list (`/prices/3/amount`)? */
export function isPositionalPricePointer(extractor: TExtractor | undefined): boolean {
  return extractor?.kind === "json_pointer" && /^\/prices(\/|$)/.test(extractor.pointer);
}

export function bestAnchor(...anchors: (TAnchor | null | undefined)[]): TAnchor | null {
  let best: TAnchor | null = null;
  for (const a of anchors) if (a && (!best || a.rank < best.rank)) best = a;
  return best;
}

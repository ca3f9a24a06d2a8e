import { z } from "zod";
import { findPrices } from "../../lib/parse-price";
import { ZExtractorSchema } from "../definition/field-schema";
import { resolveJsonPointer } from "../fill/json-pointer";
import { parseMoneyText, parseNumberText } from "../fill/parse-number-text";
import {
  ANCHOR_RANK,
  escapeForPattern,
  headingAnchor,
  labelAnchor,
  pricePattern,
  readsAs,
  runPattern,
  type TAnchor,
} from "./price-anchors";
import type { TTextPrice } from "./price-roles";

/**
 * Every price a multi-plan or multi-variant page offers, with the words that say what it is the price
 * of (docs/intelligence.md, "decision-aware drafting"): its label, the heading or card name above it,
 * the button after it ("Choose Pro"), its table row and column, the name and variant properties of its
 * structured offer. The decision's words rank them (rank-price-candidates.ts); the person can rebind a
 * field to one by naming it in chat; the agent gets the list as page data. Kept small and bounded with
 * the sample's reading, because the HTML is not kept.
 */

export const ZPriceCandidateSchema = z.object({
  amount: z.number(),
  currency: z.string().nullable(),
  /** As the page shows it ("$49", "22,90 €"), or the structured value. */
  text: z.string(),
  /** A short name for it ("Pro", "Business · annual", "500 g"). */
  label: z.string(),
  /** Words about it, strongest first, each with a weight (label 4, heading/button/column 3, nearby 1). */
  context: z.array(z.object({ words: z.string(), weight: z.number() })),
  /** Shown on the page (in the visible text or a structured offer), not a hidden toggle or an option. */
  shown: z.boolean(),
  anchor: z.object({
    kind: z.enum(["offer", "css", "label", "heading", "position"]),
    rank: z.number(),
    extractor: ZExtractorSchema,
  }),
  /** In words: "the price under the heading “Pro”". */
  where: z.string(),
});
export type TPriceCandidate = z.infer<typeof ZPriceCandidateSchema>;

export const MAX_CANDIDATES = 24;
const MAX_CONTEXT_WORDS = 80;
const MAX_LINE_GAP = 6;
const SHORT_LINE = 60;

/** A button or link that closes a plan card ("Choose Pro", "Start with Growth", "Jetzt Plus wählen"). */
export const CTA_LINE =
  /^(choose|select|get|buy|start|try|subscribe|order|upgrade|sign up|join|pick|go|continue with|add|book|wählen|jetzt|kaufen|choisir|elegir|scegli|kies)\b/i;

const clip = (s: string, n = MAX_CONTEXT_WORDS) =>
  s
    .replace(/\s+/g, " ")
    .replace(/[\s:–—-]+$/u, "")
    .trim()
    .slice(0, n);

type TLineInfo = { text: string; prices: TTextPrice[]; heading: boolean; cta: boolean };

function lineInfos(mainText: string, prices: readonly TTextPrice[], headings: ReadonlySet<string>): TLineInfo[] {
  const lines = mainText.split("\n");
  const byLine = new Map<number, TTextPrice[]>();
  for (const p of prices) byLine.set(p.line, [...(byLine.get(p.line) ?? []), p]);
  return lines.map((text, i) => ({
    text,
    prices: byLine.get(i) ?? [],
    heading: headings.has(text.trim()),
    cta: text.length <= SHORT_LINE && CTA_LINE.test(text.trim()),
  }));
}

/** Cells of a line as tokens, each price one token: "Business $45 $450 10" → [Business, ¤, ¤, 10]. */
function tokens(line: TLineInfo): string[] {
  let text = line.text;
  for (const p of [...line.prices].reverse()) text = `${text.slice(0, p.start)} \u0001 ${text.slice(p.end)}`;
  return text.split(/\s+/).filter(Boolean);
}

export const stripCta = (s: string) =>
  s
    .replace(CTA_LINE, "")
    .replace(/^\s*(with|the|plan)\s+/i, "")
    .trim();

/**
 * Candidates from the visible text: each own-role price with its same-line label, the heading or short
 * line that opens its card, the button that closes it, its table row and column header — and an
 * anchor by those words (label, heading, row, button) when one reads exactly it on the sample.
 */
export function textCandidates(
  mainText: string,
  prices: readonly TTextPrice[],
  headingList: readonly string[],
): TPriceCandidate[] {
  const own = prices.filter((p) => p.role === "own");
  if (own.length < 2) return [];
  const infos = lineInfos(mainText, own, new Set(headingList.map((h) => h.replace(/\s+/g, " ").trim())));
  const out: TPriceCandidate[] = [];
  for (const p of own) {
    if (out.length >= MAX_CANDIDATES) break;
    const line = infos[p.line] as TLineInfo;
    const context: TPriceCandidate["context"] = [];
    const push = (words: string, weight: number) => {
      const w = clip(words);
      if (w && /\p{L}|\d/u.test(w)) context.push({ words: w, weight });
    };
    const nth = line.prices.indexOf(p);
    const rowLabel = line.text.slice(0, line.prices[0]?.start ?? 0).trim();
    push(p.label, 4);
    if (nth > 0 && rowLabel) push(rowLabel, 4);
    push(line.text.slice(p.end, p.end + 30).replace(/\d.*$/s, ""), 2);
    // The card above: lines back to the previous price line, buttons excluded (they close the card before).
    // A table row (several prices on the line) is named by its row and column only: the lines around it are
    // other rows and the header, which name every column at once.
    const row = line.prices.length >= 2;
    let opener: { text: string; at: number } | null = null;
    for (let i = p.line - 1, d = 1; !row && i >= 0 && d <= MAX_LINE_GAP; i--, d++) {
      const l = infos[i] as TLineInfo;
      if (l.prices.length > 0) break;
      if (l.cta || l.text.length > SHORT_LINE) continue;
      // The card's name: a heading, or a short line that is not a sentence ("Pro", not "1 account, cancel anytime").
      if (!opener && (l.heading || (l.text.length <= 30 && !/[,.;!?]/.test(l.text)))) opener = { text: l.text, at: i };
      push(l.text, opener?.at === i ? 3 : 1);
    }
    // The card below: lines up to the next price line, the button that closes it weighs as a name.
    let closer: string | null = null;
    for (let i = p.line + 1, d = 1; !row && i < infos.length && d <= MAX_LINE_GAP; i++, d++) {
      const l = infos[i] as TLineInfo;
      if (l.prices.length > 0 || l.heading) break;
      if (l.cta) {
        closer = stripCta(l.text);
        push(l.text, 3);
        break;
      }
      if (l.text.length <= SHORT_LINE) push(l.text, 1);
    }
    // A table row with several prices: the column header right-aligned over the row's cells.
    let column: string | null = null;
    if (row) {
      for (let i = p.line - 1; i >= 0 && p.line - i <= 12; i--) {
        const l = infos[i] as TLineInfo;
        if (l.prices.length > 0) continue;
        const head = tokens(l);
        const row = tokens(line);
        const cells: number[] = [];
        row.forEach((t, k) => {
          if (t === "\u0001") cells.push(k);
        });
        const cell = cells[nth] ?? -1;
        const fromRight = row.length - 1 - cell;
        const h = head[head.length - 1 - fromRight];
        if (h && head.length <= row.length + 1 && l.text.length <= 120) {
          column = h;
          push(h, 3);
        }
        break;
      }
    }
    const name =
      (nth > 0 ? rowLabel : p.label) || opener?.text || closer || (column && line.prices.length >= 2 ? "" : "");
    const label = clip([name, column].filter(Boolean).join(" · ") || p.label || p.text, 60);
    const anchor = textAnchor(mainText, p, { opener, closer: closer ? lineOfCta(infos, p) : null, rowLabel, nth });
    if (!anchor) continue;
    out.push({
      amount: p.amount,
      currency: p.currency || null,
      text: p.text,
      label,
      context,
      shown: true,
      anchor: anchor.anchor,
      where: anchor.where,
    });
  }
  return out;
}

function lineOfCta(infos: readonly TLineInfo[], p: TTextPrice): { text: string; at: number } | null {
  for (let i = p.line + 1; i < infos.length && i - p.line <= MAX_LINE_GAP; i++) {
    const l = infos[i] as TLineInfo;
    if (l.prices.length > 0 || l.heading) return null;
    if (l.cta) return { text: l.text, at: i };
  }
  return null;
}

function textAnchor(
  mainText: string,
  p: TTextPrice,
  at: {
    opener: { text: string; at: number } | null;
    closer: { text: string; at: number } | null;
    rowLabel: string;
    nth: number;
  },
): { anchor: TAnchor; where: string } | null {
  const number = pricePattern(p.text);
  if (!number) return null;
  const tries: { anchor: TAnchor | null; where: string }[] = [];
  if (p.label && at.nth === 0) tries.push({ anchor: labelAnchor(mainText, p), where: `the price after “${p.label}”` });
  if (at.opener)
    tries.push({
      anchor: headingAnchor(mainText, p, at.opener.text),
      where: `the price under the heading “${at.opener.text}”`,
    });
  if (at.closer) {
    // "$20 … Choose Duo": the price before the button, with no other price of that currency between.
    const marks = [...new Set(p.text.replace(/[\d\s.,'\u00a0\u202f]/g, ""))]
      .map((c) => c.replace(/[\\\]^-]/g, "\\$&"))
      .join("");
    if (marks) {
      const gap = at.closer.at - p.line;
      const pattern = `(${number})[^\\n${marks}]*(?:\\n[^\\n${marks}]*){0,${gap - 1}}\\n${escapeForPattern(at.closer.text.trim())}$`;
      tries.push({
        anchor: checked(mainText, p, pattern, "m", ANCHOR_RANK.label),
        where: `the price above the button “${at.closer.text.trim()}”`,
      });
    }
  }
  if (at.nth > 0 && at.rowLabel) {
    const skip = `(?:[^\\n]*?${number}){${at.nth}}`;
    const pattern = `^${escapeForPattern(at.rowLabel)}${skip}[^\\n]*?(${number})`;
    tries.push({
      anchor: checked(mainText, p, pattern, "m", ANCHOR_RANK.heading),
      where: `price ${at.nth + 1} in the row “${at.rowLabel}”`,
    });
  }
  if (at.nth === 0 && at.rowLabel && at.rowLabel !== p.label) {
    const pattern = `^${escapeForPattern(at.rowLabel)}[^\\n]*?(${number})`;
    tries.push({
      anchor: checked(mainText, p, pattern, "m", ANCHOR_RANK.label),
      where: `the price in the row “${at.rowLabel}”`,
    });
  }
  let best: { anchor: TAnchor; where: string } | null = null;
  for (const t of tries)
    if (t.anchor && (!best || t.anchor.rank < best.anchor.rank)) best = t as { anchor: TAnchor; where: string };
  return best;
}

function checked(mainText: string, p: TTextPrice, pattern: string, flags: string, rank: number): TAnchor | null {
  const r = runPattern(pattern, flags, mainText);
  if (r.count !== 1 || !readsAs(r.value, p)) return null;
  return { kind: "label", rank, extractor: { kind: "regex", pattern, ...(flags ? { flags } : {}) } };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);
const VARIANT_KEYS = ["name", "sku", "size", "color", "colour", "weight", "material", "pattern", "description"];
const escapePointer = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");

function amountOf(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string") return parseNumberText(v);
  return null;
}

/**
 * Candidates from the page's JSON-LD: every object with a price (an Offer, a variant's offer, a product
 * of an ItemList), named by its own name and variant properties and those of the objects around it,
 * read by its path in the document's `jsonLd` (a structured path, not a position in the text).
 */
export function jsonLdCandidates(document: unknown): TPriceCandidate[] {
  const doc = isRecord(document) ? document : {};
  const entities = Array.isArray(doc.jsonLd) ? doc.jsonLd : [];
  const out: TPriceCandidate[] = [];
  let visits = 0;
  const visit = (value: unknown, pointer: string, names: { words: string; weight: number }[], depth: number) => {
    if (depth > 10 || ++visits > 2_000 || out.length >= MAX_CANDIDATES) return;
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) visit(v, `${pointer}/${i}`, names, depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    const own = VARIANT_KEYS.flatMap((k) => {
      const s = str(value[k]);
      return s ? [{ words: clip(s), weight: k === "description" ? 1 : 3 }] : [];
    });
    const context = [...own, ...names.map((n) => ({ ...n, weight: Math.min(n.weight, 2) }))];
    const key = "price" in value ? "price" : "lowPrice" in value ? "lowPrice" : null;
    const amount = key ? amountOf(value[key]) : null;
    if (key && amount !== null) {
      const at = `${pointer}/${escapePointer(key)}`;
      const hit = resolveJsonPointer(document, at);
      if (hit.found) {
        const currency = str(value.priceCurrency)?.toUpperCase() ?? null;
        const label = own.find((o) => o.weight === 3)?.words ?? names[0]?.words ?? "";
        out.push({
          amount,
          currency: currency && /^[A-Z]{3}$/.test(currency) ? currency : null,
          text: `${amount}${currency ? ` ${currency}` : ""}`,
          label: clip(label, 60),
          context,
          shown: true,
          anchor: { kind: "offer", rank: ANCHOR_RANK.offer, extractor: { kind: "json_pointer", pointer: at } },
          where: `the structured offer${label ? ` “${clip(label, 60)}”` : ""} (${at})`,
        });
      }
    }
    for (const [k, v] of Object.entries(value)) {
      if (k.startsWith("@") || typeof v !== "object" || v === null) continue;
      visit(v, `${pointer}/${escapePointer(k)}`, context, depth + 1);
    }
  };
  for (const [i, e] of entities.entries()) visit(e, `/jsonLd/${i}`, [], 0);
  return out;
}

/** Candidates from microdata / OpenGraph offers with names of their own (JSON-LD ones come from jsonLd). */
export function offerCandidates(document: unknown): TPriceCandidate[] {
  const doc = isRecord(document) ? document : {};
  const offers = Array.isArray(doc.offers) ? doc.offers.filter(isRecord) : [];
  const named = offers.filter((o) => o.source !== "json-ld" && str(o.name));
  if (new Set(named.map((o) => str(o.name))).size < 2) return [];
  const out: TPriceCandidate[] = [];
  offers.forEach((o, i) => {
    const name = str(o.name);
    const amount = amountOf(o.price) ?? amountOf(o.lowPrice);
    if (o.source === "json-ld" || !name || amount === null || out.length >= MAX_CANDIDATES) return;
    const key = amountOf(o.price) !== null ? "price" : "lowPrice";
    const currency = str(o.currency);
    out.push({
      amount,
      currency,
      text: `${amount}${currency ? ` ${currency}` : ""}`,
      label: clip(name, 60),
      context: [{ words: clip(name), weight: 4 }],
      shown: true,
      anchor: {
        kind: "offer",
        rank: ANCHOR_RANK.offer + 1,
        extractor: { kind: "json_pointer", pointer: `/offers/${i}/${key}` },
      },
      where: `the structured offer “${clip(name, 60)}”`,
    });
  });
  return out;
}

/** A CSS-found price (a hidden toggle price, a select option), checked against the sample. */
export function cssCandidate(input: {
  text: string;
  label: string;
  context: TPriceCandidate["context"];
  selector: string;
  where: string;
  currency: string | null;
  shown: boolean;
}): TPriceCandidate | null {
  const money = parseMoneyText(input.text, input.currency ?? undefined);
  const span = findPrices(input.text, { limit: 1 })[0];
  if (!money) return null;
  return {
    amount: money.amount,
    currency: money.currency ?? null,
    text: span ? input.text.slice(span.start, span.end).trim() : input.text,
    label: clip(input.label, 60),
    context: input.context,
    shown: input.shown,
    anchor: { kind: "css", rank: ANCHOR_RANK.cssScoped, extractor: { kind: "css", selector: input.selector } },
    where: input.where,
  };
}

/** Candidates as one bounded list: duplicates (same amount and label) kept once, the better anchor winning. */
export function mergeCandidates(...lists: TPriceCandidate[][]): TPriceCandidate[] {
  const out: TPriceCandidate[] = [];
  for (const c of lists.flat()) {
    const same = out.findIndex(
      (o) => Math.abs(o.amount - c.amount) < 1e-9 && o.label.toLowerCase() === c.label.toLowerCase(),
    );
    if (same >= 0) {
      const o = out[same] as TPriceCandidate;
      const context = [...o.context, ...c.context].slice(0, 12);
      out[same] =
        c.anchor.rank < o.anchor.rank
          ? { ...c, context, shown: o.shown || c.shown }
          : { ...o, context, shown: o.shown || c.shown };
      continue;
    }
    if (out.length < MAX_CANDIDATES) out.push(c);
  }
  return out;
}

import { z } from "zod";
import {
  answerCssInWorker,
  DEFAULT_PAGE_LIMITS,
  type TPageLimits,
  ZStructuredDocumentSchema,
} from "../../capabilities";
import { ZExtractorSchema } from "../definition/field-schema";
import { ANCHOR_RANK, bestAnchor, headingAnchor, labelAnchor, positionAnchor, type TAnchor } from "./price-anchors";
import {
  CTA_LINE,
  jsonLdCandidates,
  mergeCandidates,
  offerCandidates,
  type TPriceCandidate,
  textCandidates,
  ZPriceCandidateSchema,
} from "./price-candidates";
import { PROSE_LINE_CHARS, pickOwnPrice, readPriceRoles, type TTextPrice } from "./price-roles";
import { probeCandidateCss } from "./probe-candidate-css";
import { findCssAnchor, readPriceCssFacts, type TCssOracle, type TPriceCssFacts } from "./probe-price-css";

/**
 * The drafter's reading of a web page (docs/intelligence.md: drafts anchored by meaning, not position): the
 * product's own price and how to read it again (its structured offer, else a CSS element or a label tied
 * to it), the other labelled prices, the prices it skipped and why (old, promotional, passing mentions),
 * whether and where the page states availability, and whether the page reads like an article.
 * Computed once when the sample is read and kept with it; both drafters (rules mode and the agent) use it.
 */

/** The document's availability section (value, source, phrase): what the reading points the field at. */
const ZDocumentAvailabilitySchema = ZStructuredDocumentSchema.shape.availability.unwrap();
/** schema.org availability values ("InStock", "OutOfStock", …), as the document normalises them. */
export const AVAILABILITY_FIELD_VALUES = ZDocumentAvailabilitySchema.shape.value.options;

export const ZAnchorSchema = z.object({
  kind: z.enum(["offer", "css", "label", "heading", "position"]),
  rank: z.number(),
  extractor: ZExtractorSchema,
});

export const ZReadPriceSchema = z.object({
  amount: z.number(),
  currency: z.string().nullable(),
  /** As the page shows it ("49,90 €"), or the structured value ("129.99 USD"). */
  text: z.string(),
  /** What the price is of: the offer's or product's name, or the words in front of it ("Team plan"). */
  label: z.string(),
  role: z.enum(["own", "old", "promo", "mention"]),
  why: z.string().nullable(),
  source: z.enum(["offer", "text"]),
  /** The structured offer gives a range: the amount is its lowest price. */
  lowest: z.boolean(),
  anchor: ZAnchorSchema.nullable(),
});
export type TReadPrice = z.infer<typeof ZReadPriceSchema>;

export const ZPageReadingSchema = z.object({
  /** The product's name (offer name, else the h1), or null. */
  productName: z.string().nullable(),
  /** The product's own price, or null when the page shows none. */
  ownPrice: ZReadPriceSchema.nullable(),
  /** Other named offers (plans, variants) in the structured data. */
  otherOffers: z.array(ZReadPriceSchema),
  /** Other prices in the text that have a label of their own ("Team plan $99"). */
  otherPrices: z.array(ZReadPriceSchema),
  /** Old, promotional and passing-mention prices: never drafted unless the person asks. */
  skipped: z.array(ZReadPriceSchema),
  /** The page's stated availability and the pointer that reads it (`/availability/value`). */
  availability: ZDocumentAvailabilitySchema.extend({ pointer: z.string() }).nullable(),
  /** No offers, no stock, long running text: the main text is what changes. */
  articleLike: z.boolean(),
  /**
   * Every price of a page with several plans or variants, with the words that say what it is the price
   * of and an anchor (price-candidates.ts): the decision's words pick one. Readings stored before have none.
   */
  candidates: z.array(ZPriceCandidateSchema).default([]),
});
export type TPageReading = z.infer<typeof ZPageReadingSchema>;

type TOfferLike = {
  name?: unknown;
  price?: unknown;
  lowPrice?: unknown;
  currency?: unknown;
};
type TDocLike = {
  title?: unknown;
  headings?: unknown;
  mainText?: unknown;
  offers?: unknown;
  availability?: unknown;
};

const MAX_OTHER = 3;
const MAX_SKIPPED = 12;
const MAX_LABEL_TRIES = 12;
/** Prose: this many characters in lines of running text, over at least this many lines. */
const ARTICLE_PROSE_CHARS = 500;
const ARTICLE_PROSE_LINES = 3;

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function fromOffer(offer: TOfferLike, i: number, fallbackName: string | null): TReadPrice | null {
  const price = num(offer.price);
  const low = num(offer.lowPrice);
  const amount = price ?? low;
  if (amount === null) return null;
  const currency = str(offer.currency);
  const key = price !== null ? "price" : "lowPrice";
  return {
    amount,
    currency,
    text: `${amount}${currency ? ` ${currency}` : ""}`,
    label: str(offer.name) ?? fallbackName ?? "",
    role: "own",
    why: null,
    source: "offer",
    lowest: price === null,
    anchor: {
      kind: "offer",
      rank: ANCHOR_RANK.offer,
      extractor: { kind: "json_pointer", pointer: `/offers/${i}/${key}` },
    },
  };
}

function fromText(p: TTextPrice, anchor: TAnchor | null): TReadPrice {
  return {
    amount: p.amount,
    currency: p.currency,
    text: p.text,
    label: p.label,
    role: p.role,
    why: p.why,
    source: "text",
    lowest: false,
    anchor,
  };
}

/** A plan's price ("Team plan $99 per month"), not a cross-sell's ("Trail socks $14.99"). */
const PLAN_WORDS =
  /\b(plan|tier|seat|user|licen[cs]e|subscription|per (month|year|user|seat)|a (month|year)|monthly|annual(ly)?|yearly|\/\s?(mo|month|yr|year)|pro monat|im monat|jährlich|par mois|par an|al mes|al año|al mese|per maand|per år|i månaden)\b/i;

function isPlanPrice(p: TTextPrice, lines: readonly string[]): boolean {
  const line = lines[p.line] ?? "";
  return PLAN_WORDS.test(p.label) || PLAN_WORDS.test(line.slice(p.end, p.end + 30));
}

const roleHints = (facts: TPriceCssFacts | undefined) => ({
  oldTexts: facts?.oldTexts ?? [],
  priceTexts: facts?.priceElements.map((e) => e.text) ?? [],
});

function proseOf(mainText: string): { chars: number; lines: number } {
  let chars = 0;
  let lines = 0;
  for (const line of mainText.split("\n")) {
    if (line.length < PROSE_LINE_CHARS / 2) continue;
    chars += line.length;
    lines++;
  }
  return { chars, lines };
}

/**
 * The reading from the structured document alone, plus what the page's HTML said when it was asked
 * (`css`: old-price texts, the h1, and a CSS anchor for the own price). Pure.
 */
export function readPageFromDocument(
  document: unknown,
  css: { facts?: TPriceCssFacts; ownPriceAnchor?: TAnchor | null; candidates?: TPriceCandidate[] } = {},
): TPageReading {
  const doc = (isRecord(document) ? document : {}) as TDocLike;
  const mainText = typeof doc.mainText === "string" ? doc.mainText : "";
  const offers = Array.isArray(doc.offers) ? (doc.offers as unknown[]).filter(isRecord) : [];
  const headings = Array.isArray(doc.headings) ? doc.headings.filter((h): h is string => typeof h === "string") : [];
  const heading = css.facts?.h1 ?? headings[0] ?? null;
  const availabilityIn = isRecord(doc.availability) ? doc.availability : null;
  const availabilityParsed = ZPageReadingSchema.shape.availability.safeParse(
    availabilityIn ? { ...availabilityIn, pointer: "/availability/value" } : null,
  );
  const availability = availabilityParsed.success ? availabilityParsed.data : null;

  // The product's own price: its structured offer first (offers are the page's own normalised offers).
  const offerPrices = offers.map((o, i) => fromOffer(o as TOfferLike, i, null));
  const ownOfferIndex = offerPrices.findIndex((p) => p !== null);
  const ownOffer = ownOfferIndex >= 0 ? offerPrices[ownOfferIndex] : null;
  const productName = str((offers[ownOfferIndex] as TOfferLike | undefined)?.name) ?? heading ?? str(doc.title) ?? null;
  if (ownOffer && !ownOffer.label) ownOffer.label = productName ?? "";

  const lines = mainText.split("\n");
  const textPrices = readPriceRoles(mainText, roleHints(css.facts));
  const prose = proseOf(mainText);
  const looksLikeProse = prose.chars >= ARTICLE_PROSE_CHARS && prose.lines >= ARTICLE_PROSE_LINES;

  let ownPrice: TReadPrice | null = ownOffer ?? null;
  let ownText: TTextPrice | null = null;
  if (!ownPrice) {
    ownText = pickOwnPrice(textPrices, mainText, heading);
    if (ownText) {
      const anchor = bestAnchor(
        css.ownPriceAnchor && css.ownPriceAnchor.kind === "css" ? css.ownPriceAnchor : null,
        labelAnchor(mainText, ownText),
        headingAnchor(mainText, ownText, heading),
        positionAnchor(document, ownText),
      );
      ownPrice = fromText(ownText, anchor);
      if (!ownPrice.label) ownPrice.label = productName ?? "";
    }
  }
  // An article mentions prices in passing; only a price the page marks as one (a CSS anchor) makes it a product.
  const articleLike =
    offers.length === 0 &&
    availability === null &&
    looksLikeProse &&
    !(ownPrice?.anchor && ownPrice.anchor.kind === "css");
  if (articleLike && ownPrice?.source === "text") {
    ownPrice = null;
    ownText = null;
  }

  const otherOffers: TReadPrice[] = [];
  const seenNames = new Set([ownPrice?.label.toLowerCase() ?? ""]);
  offerPrices.forEach((p, i) => {
    if (!p || i === ownOfferIndex || otherOffers.length >= MAX_OTHER) return;
    const name = str((offers[i] as TOfferLike).name);
    if (!name || seenNames.has(name.toLowerCase())) return;
    seenNames.add(name.toLowerCase());
    otherOffers.push({ ...p, label: name });
  });

  const otherPrices: TReadPrice[] = [];
  if (!articleLike) {
    // Each try is one linear regex pass over the text; a catalogue page gets a bounded number of them.
    let tries = 0;
    for (const p of textPrices) {
      if (otherPrices.length >= MAX_OTHER || tries >= MAX_LABEL_TRIES) break;
      if (p.role !== "own" || p === ownText || !p.label || !isPlanPrice(p, lines)) continue;
      tries++;
      if (ownPrice && Math.abs(p.amount - ownPrice.amount) < 1e-9) continue;
      if (otherOffers.some((o) => Math.abs(o.amount - p.amount) < 1e-9)) continue;
      const anchor = labelAnchor(mainText, p);
      if (anchor) otherPrices.push(fromText(p, anchor));
    }
  }

  const skipped = textPrices
    .filter((p) => p.role !== "own")
    .slice(0, MAX_SKIPPED)
    .map((p) => fromText(p, labelAnchor(mainText, p)));

  const candidates = mergeCandidates(
    jsonLdCandidates(document),
    offerCandidates(document),
    textCandidates(mainText, textPrices, headings),
    css.candidates ?? [],
  );
  return {
    productName,
    ownPrice,
    otherOffers,
    otherPrices,
    skipped,
    availability,
    articleLike,
    candidates: candidates.length >= 2 ? candidates : [],
  };
}

/**
 * The full reading: asks the page's HTML (in the page worker) which elements are prices and which are
 * struck through, then anchors the own price with a CSS selector when one reads it alone. Without HTML
 * (JSON or text pages) it is the document-only reading. Never throws: a page the worker cannot read
 * gets the document-only reading.
 */
export async function readPageForDraft(
  document: unknown,
  html: string | undefined,
  limits: TPageLimits = DEFAULT_PAGE_LIMITS,
): Promise<TPageReading> {
  if (!html) return readPageFromDocument(document);
  const ask: TCssOracle = (queries) => answerCssInWorker(html, queries, limits);
  return readPageWithCss(document, ask);
}

/** readPageForDraft with any CSS oracle (tests pass one over a known page). */
export async function readPageWithCss(document: unknown, ask: TCssOracle): Promise<TPageReading> {
  try {
    const facts = await readPriceCssFacts(ask);
    const own = ownTextPriceCandidate(document, facts);
    const anchor = own ? await findCssAnchor(ask, facts, own) : null;
    const candidates = await probeCandidateCss(ask, candidateNames(document, facts));
    return readPageFromDocument(document, { facts, ownPriceAnchor: anchor, candidates });
  } catch {
    return readPageFromDocument(document);
  }
}

/** What names a plan card in the HTML: the headings under the h1 and the buttons of the visible text. */
function candidateNames(document: unknown, facts: TPriceCssFacts) {
  const doc = (isRecord(document) ? document : {}) as TDocLike;
  const mainText = typeof doc.mainText === "string" ? doc.mainText : "";
  const headings = Array.isArray(doc.headings) ? doc.headings.filter((h): h is string => typeof h === "string") : [];
  const lines = mainText.split("\n");
  const prices = readPriceRoles(mainText, roleHints(facts));
  const buttons = lines.filter((l) => l.length <= 40 && CTA_LINE.test(l.trim()));
  const currency = prices.find((p) => p.role === "own")?.currency ?? null;
  return {
    names: [...headings.filter((h) => h !== facts.h1), ...buttons],
    shownAmounts: new Set(prices.map((p) => p.amount)),
    currency: currency || null,
  };
}

/** The own price the text shows when the page has no structured offer price (before any article check). */
function ownTextPriceCandidate(document: unknown, facts: TPriceCssFacts): TTextPrice | null {
  const doc = (isRecord(document) ? document : {}) as TDocLike;
  const offers = Array.isArray(doc.offers) ? (doc.offers as unknown[]).filter(isRecord) : [];
  if (offers.some((o) => num(o.price) !== null || num(o.lowPrice) !== null)) return null;
  const mainText = typeof doc.mainText === "string" ? doc.mainText : "";
  const headings = Array.isArray(doc.headings) ? doc.headings.filter((h): h is string => typeof h === "string") : [];
  const prices = readPriceRoles(mainText, roleHints(facts));
  return pickOwnPrice(prices, mainText, facts.h1 ?? headings[0] ?? null);
}

/** A stored reading, if it is one (samples stored before readings existed have none). */
export function parsePageReading(value: unknown): TPageReading | null {
  const parsed = ZPageReadingSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

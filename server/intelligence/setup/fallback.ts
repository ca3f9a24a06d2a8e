import { getCapability } from "../../capabilities";
import type { TExtractor, TField, TMaterialityRule, TTrackerDefinition } from "../definition";
import { parseDefinition } from "../definition";
import { draftListingSet, type TListingDraft } from "./draft-listing-set";
import { draftSetFromSample } from "./draft-set";
import type { TPriceCandidate } from "./price-candidates";
import { matchedWords, namedCandidate, type TRankedCandidate } from "./rank-price-candidates";
import {
  AVAILABILITY_FIELD_VALUES,
  readPageFromDocument,
  type TPageReading,
  type TReadPrice,
} from "./read-page-for-draft";

/**
 * Rules-mode drafter: derives a definition from the sample's structure alone, with deterministic
 * extractors and conservative materiality — numbers and prices move on 1%, availability on any change,
 * everything else is left to the judge (which, in rules mode, marks it notable).
 *
 * Web pages are drafted from the page reading (read-page-for-draft.ts), anchored by meaning, not
 * position (docs/page-reading.md): the product's own price from its structured offer (`/offers/0/price`), else a CSS
 * element or a label tied to it — never the Nth price of the text when anything better exists; old and
 * promotional prices are skipped unless the decision asks for them; availability is proposed whenever
 * the page states it; an article gets its main text as a field the agent judges.
 */

const MAX_FIELDS = 12;
const PRICE_NAME = /price|cost|amount|fee|plan|total/i;

type TDraft = { fields: TField[]; materiality: Record<string, TMaterialityRule> };

export type TDraftOptions = {
  /** The person's decision (the first message): asks for old or promotional prices include them. */
  decision?: string;
  /** The page reading kept with the sample; without one it is read from the document alone. */
  reading?: TPageReading | null;
  /** A web page watched as a listing (read-listing-sample.ts `listingOfSample`): drafted as a set of its items. */
  listing?: TListingDraft | null;
};

export type TDraftResult = {
  definition: TTrackerDefinition;
  /** What was drafted and skipped, in plain sentences (the rules-mode reply says them). */
  notes: string[];
};

export function draftFromSample(capability: string, results: unknown, options: TDraftOptions = {}): TTrackerDefinition {
  return draftWithNotes(capability, results, options).definition;
}

export function draftWithNotes(capability: string, results: unknown, options: TDraftOptions = {}): TDraftResult {
  const r = (results ?? {}) as Record<string, unknown>;
  const draft: TDraft = { fields: [], materiality: {} };
  const notes: string[] = [];
  // A source that reads many members is drafted as a set: a listing page by its plan (draft-listing-set.ts), a feed
  // by its descriptor's `draftSet` (draft-set.ts).
  const set = options.listing
    ? draftListingSet(options.listing, options.decision ?? "")
    : draftSetFromSample(getCapability(capability), results);
  // Drafted from the sample's shape: a set, a place, a JSON body, or a structured document (pages, PDFs).
  if (set) {
    for (const f of set.fields) add(draft, f.spec, f.rule);
    notes.push(...set.notes);
  } else if (isRecord(r.place)) {
    fromPlace(draft, r.place);
  } else if (r.json !== undefined) {
    fromJson(draft, r.json, "", 0);
  } else {
    const document = isRecord(r.document) ? r.document : {};
    fromDocument(draft, document, options.reading ?? readPageFromDocument(document), options.decision ?? "", notes);
    fromLines(draft, getCapability(capability)?.watchLines, notes);
  }
  // The capability's own identity (its descriptor), except a JSON body: it has no canonical address, its input names it.
  const identityRule: TTrackerDefinition["identityRule"] = {
    kind:
      r.json !== undefined && !isRecord(r.place) ? "input" : (getCapability(capability)?.identity ?? "canonical_url"),
  };
  if (draft.fields.length === 0) {
    add(
      draft,
      { name: "main_text", type: "string", description: "The page's main text", ptr: "/mainText" },
      {
        kind: "ask_agent",
      },
    );
  }
  const definition = {
    fields: draft.fields,
    identityRule,
    materiality: draft.materiality,
    ...(set ? { set: set.policy } : {}),
  };
  const parsed = parseDefinition(definition);
  // Every piece above is built to validate; if it ever does not, that is a bug worth surfacing.
  if (!parsed.ok) throw new Error(`rules-mode draft does not validate: ${parsed.errors.join("; ")}`);
  return { definition: parsed.definition, notes };
}

export type TFieldSpec = {
  name: string;
  type: TField["type"];
  description: string;
  /** A JSON pointer, or any extractor. */
  ptr?: string;
  extractor?: TExtractor;
  unit?: string;
  currency?: string;
  enumValues?: string[];
};

function add(draft: TDraft, spec: TFieldSpec, rule: TMaterialityRule): string | null {
  if (draft.fields.length >= MAX_FIELDS) return null;
  let name = toFieldName(spec.name);
  for (let i = 2; draft.fields.some((f) => f.name === name); i++) name = `${toFieldName(spec.name)}_${i}`;
  const field: TField = {
    name,
    type: spec.type,
    description: spec.description.slice(0, 500),
    extractor: spec.extractor ?? { kind: "json_pointer", pointer: spec.ptr ?? "" },
  };
  if (spec.unit) field.unit = spec.unit;
  if (spec.currency) field.currency = spec.currency;
  if (spec.enumValues) field.enumValues = spec.enumValues;
  draft.fields.push(field);
  draft.materiality[name] = rule;
  return name;
}

const PRICE_RULE: TMaterialityRule = { kind: "numeric", relative: 0.01 };
const TEXT_RULE: TMaterialityRule = { kind: "ask_agent" };
const ANY_RULE: TMaterialityRule = { kind: "any_change" };
const ARTICLE_RULE: TMaterialityRule = {
  kind: "ask_agent",
  guidance:
    "A new, removed or rewritten paragraph that changes what the article says is material; typo fixes, rewording and layout are noise.",
};

/** The decision asks about old prices ("regular price", "discount", "on sale") or promotions ("shipping"). */
const ASKS_OLD =
  /\b(was price|regular|list price|original price|old price|rrp|msrp|uvp|statt|strike|struck|discount|sale|reduced|markdown|compare)\w*/i;
const ASKS_PROMO =
  /\b(shipping|delivery|postage|promo|promotion|coupon|voucher|free shipping|versand|livraison|envío)\w*/i;
const ASKS_PRICE = /\b(price|cost|costs|pricing|cheaper|expensive|undercut)|[$€£]/i;

/** Paragraph lines of the main text: running text, without short UI lines ("Share", "5 min read"). */
const PARAGRAPHS = "[^\\n]{40,}";
/** Every line of a document's text. */
const LINES = "[^\\n]+";

const isCode = (c: string | null): c is string => !!c && /^[A-Z]{3}$/.test(c);

function describeAnchor(p: TReadPrice): string {
  const a = p.anchor?.extractor;
  if (!a) return "";
  if (p.anchor?.kind === "offer") return `from the page's structured offer${p.lowest ? " (its lowest price)" : ""}`;
  if (a.kind === "css") return `read from the element ${a.selector}`;
  if (p.anchor?.kind === "label") return `read after its label “${p.label}”`;
  if (p.anchor?.kind === "heading") return "read as the first price under the product heading";
  return "read by its position among the page's prices (nothing steadier was found)";
}

function addPrice(draft: TDraft, p: TReadPrice, name: string, what: string): string | null {
  if (!p.anchor) return null;
  return add(
    draft,
    {
      name,
      type: isCode(p.currency) ? "money" : "number",
      currency: isCode(p.currency) ? p.currency : undefined,
      description: `${what} — ${describeAnchor(p)} (was “${p.text}” in the sample)`,
      extractor: p.anchor.extractor,
    },
    PRICE_RULE,
  );
}

const quote = (p: TReadPrice) => `“${p.text}”${p.why ? ` (${p.why})` : ""}`;

/** A document whose words matter (its capability's `watchLines`): its lines as one field the agent judges. */
function fromLines(draft: TDraft, lines: { description: string; guidance: string } | undefined, notes: string[]) {
  if (!lines || draft.fields.some((f) => f.type === "string_list")) return;
  const rule: TMaterialityRule = { kind: "ask_agent", guidance: lines.guidance };
  const name = add(
    draft,
    { name: "text", type: "string_list", description: lines.description, extractor: { kind: "regex", pattern: LINES } },
    rule,
  );
  if (name)
    notes.push(
      "I also watch its text line by line, as a field the agent judges (a changed clause or date). AI is off, so a change to it is recorded as notable, not judged.",
    );
}

function fromDocument(
  draft: TDraft,
  doc: Record<string, unknown>,
  reading: TPageReading,
  decision: string,
  notes: string[],
) {
  const drafted: string[] = [];
  // The decision names one of the page's plans or variants: that price is the main field, the others are not
  // drafted (docs/intelligence.md, "decision-aware drafting").
  const found = namedCandidate(reading.candidates, decision);
  // The named one is the product's own price, read at least as steadily: the usual draft stands.
  const ownAlready =
    !!found &&
    !!reading.ownPrice?.anchor &&
    Math.abs(found.candidate.amount - reading.ownPrice.amount) < 1e-9 &&
    reading.ownPrice.anchor.rank <= found.candidate.anchor.rank;
  const named = ownAlready ? null : found;
  if (found) {
    if (!named || addCandidatePrice(draft, named.candidate))
      notes.push(candidatesNote(reading.candidates, found, decision));
  } else if (reading.candidates.length >= 2) {
    notes.push(candidatesNote(reading.candidates, null, decision));
  }
  const own = named ? null : reading.ownPrice;
  if (own?.anchor) {
    const name = own.source === "offer" && own.label ? `${own.label}_price` : "price";
    const what = own.label ? `The price of “${own.label}”` : "The product's own price";
    if (addPrice(draft, own, name, what)) drafted.push(`its own price (${own.text}, ${describeAnchor(own)})`);
  }
  if (reading.availability) {
    const { value } = reading.availability;
    const name = add(
      draft,
      {
        name: "availability",
        type: "enum",
        enumValues: [...AVAILABILITY_FIELD_VALUES],
        description: `Whether the product can be bought (schema.org availability, e.g. InStock, OutOfStock), as the page states it (${reading.availability.source === "text" ? `the phrase “${reading.availability.phrase ?? value}”` : "its structured offer"})`,
        ptr: reading.availability.pointer,
      },
      ANY_RULE,
    );
    if (name) drafted.push(`its availability (${value} now; any change counts)`);
  }
  const otherOffers = named ? [] : reading.otherOffers;
  const otherPrices = named ? [] : reading.otherPrices;
  for (const o of otherOffers) addPrice(draft, o, `${o.label}_price`, `The price of “${o.label}”`);
  for (const p of otherPrices) addPrice(draft, p, `${p.label}_price`, `The price labelled “${p.label}”`);
  if (otherOffers.length + otherPrices.length > 0) {
    const n = otherOffers.length + otherPrices.length;
    drafted.push(`${n} other labelled price${n === 1 ? "" : "s"}`);
  }

  // Old and promotional prices only when the decision asks about them; passing mentions never.
  const skipped: TReadPrice[] = [];
  for (const p of reading.skipped) {
    const asked = (p.role === "old" && ASKS_OLD.test(decision)) || (p.role === "promo" && ASKS_PROMO.test(decision));
    if (!asked || !p.anchor) {
      if (p.role !== "mention") skipped.push(p);
      continue;
    }
    const kind = p.role === "old" ? "old_price" : "promotion";
    addPrice(
      draft,
      p,
      p.label ? `${p.label}_${kind}` : kind,
      p.role === "old" ? "The old (struck-through or “was”) price" : "The promotional amount",
    );
  }

  if (reading.articleLike && !named) {
    const name = add(
      draft,
      {
        name: "main_text",
        type: "string_list",
        description: "The article's paragraphs (lines of running text in the main content), in order",
        extractor: { kind: "regex", pattern: PARAGRAPHS },
      },
      ARTICLE_RULE,
    );
    if (name) {
      notes.push(
        "This page reads like an article (no price or stock on it), so I added its main text as a field the agent judges. AI is off, so a change to it is recorded as notable, not judged.",
      );
      if (ASKS_PRICE.test(decision))
        notes.push("The prices it mentions are in passing, inside the text, so I did not make a price field of them.");
    }
  }
  if (typeof doc.title === "string" && doc.title) {
    add(draft, { name: "title", type: "string", description: "The page title", ptr: "/title" }, TEXT_RULE);
  }
  if (Array.isArray(doc.headings) && doc.headings.length > 0) {
    add(
      draft,
      { name: "headings", type: "string_list", description: "The page's section headings, in order", ptr: "/headings" },
      TEXT_RULE,
    );
  }
  if (drafted.length) notes.unshift(`I watch ${joinWords(drafted)}.`);
  if (skipped.length) {
    notes.push(
      `I left out ${skipped.length === 1 ? "a price" : `${skipped.length} prices`} that ${skipped.length === 1 ? "is" : "are"} not the product's own: ${skipped.slice(0, 4).map(quote).join(", ")}.`,
    );
  }
}

/** A candidate as a price field: money when its currency is known, anchored as the candidate says. */
export function candidateField(c: TPriceCandidate, name?: string): TFieldSpec {
  return {
    // "500 g" → price_500_g: a name starts with a letter.
    name: name ?? (c.label ? (/^\d/.test(c.label) ? `price_${c.label}` : `${c.label}_price`) : "price"),
    type: isCode(c.currency) ? "money" : "number",
    currency: isCode(c.currency) ? c.currency : undefined,
    description: `The price of “${c.label || c.text}” — ${c.where} (was “${c.text}” in the sample)`,
    extractor: c.anchor.extractor,
  };
}

function addCandidatePrice(draft: TDraft, c: TPriceCandidate): string | null {
  return add(draft, candidateField(c), PRICE_RULE);
}

const MAX_LISTED = 8;

/** “3 prices on the page: Starter $19, Pro $49, Team $99; watching Pro ($49) because the decision names “Pro”.” */
export function candidatesNote(
  candidates: readonly TPriceCandidate[],
  named: TRankedCandidate | null,
  text: string,
  who = "the decision",
): string {
  const seen = new Set<string>();
  const listed: string[] = [];
  for (const c of candidates) {
    // The same price under the same name read two ways (the text and the HTML) is listed once.
    const key = `${(c.label.split(" · ")[0] ?? "").toLowerCase()}|${c.amount}`;
    if (seen.has(key)) continue;
    seen.add(key);
    listed.push(`${c.label ? `${c.label} ` : ""}${c.text}`);
  }
  const head = `${listed.length} prices on the page: ${listed.slice(0, MAX_LISTED).join(", ")}${listed.length > MAX_LISTED ? ", …" : ""}`;
  if (!named)
    return `${head}. Name one in chat (“watch the ${candidates[1]?.label || "other"} price instead”) to watch it.`;
  const words = matchedWords(named, text);
  const c = named.candidate;
  return `${head}; watching ${c.label || "this one"} (${c.text}, ${c.where}) because ${who} names ${words.map((w) => `“${w}”`).join(" and ")}.`;
}

function joinWords(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

function fromJson(draft: TDraft, value: unknown, ptr: string, depth: number) {
  if (draft.fields.length >= MAX_FIELDS || depth > 2) return;
  if (Array.isArray(value)) {
    if (value.length > 0 && depth < 2) fromJson(draft, value[0], `${ptr}/0`, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, v] of Object.entries(value)) {
    const at = `${ptr}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const name = ptr ? `${ptr.split("/").filter(Boolean).join("_")}_${key}` : key;
    if (typeof v === "number") {
      const isInt = Number.isInteger(v) && !PRICE_NAME.test(key);
      add(
        draft,
        { name, type: isInt ? "integer" : "number", description: `“${key}” from the JSON response`, ptr: at },
        PRICE_NAME.test(key) || !isInt ? PRICE_RULE : ANY_RULE,
      );
    } else if (typeof v === "boolean") {
      add(draft, { name, type: "boolean", description: `“${key}” from the JSON response`, ptr: at }, ANY_RULE);
    } else if (typeof v === "string") {
      add(
        draft,
        { name, type: "string", description: `“${key}” from the JSON response`, ptr: at },
        v.length > 120 ? TEXT_RULE : ANY_RULE,
      );
    } else if (Array.isArray(v) && v.every((x) => typeof x === "string") && v.length > 0) {
      add(
        draft,
        { name, type: "string_list", description: `“${key}” list from the JSON response`, ptr: at },
        TEXT_RULE,
      );
    } else {
      fromJson(draft, v, at, depth + 1);
    }
  }
}

function fromPlace(draft: TDraft, place: Record<string, unknown>) {
  const p = (key: string) => `/${key}`;
  if (place.rating !== undefined)
    add(
      draft,
      { name: "rating", type: "number", unit: "stars", description: "Google rating (1–5)", ptr: p("rating") },
      {
        kind: "numeric",
        absolute: 0.2,
      },
    );
  if (place.reviewCount !== undefined)
    add(
      draft,
      {
        name: "review_count",
        type: "integer",
        unit: "reviews",
        description: "Number of reviews",
        ptr: p("reviewCount"),
      },
      { kind: "numeric", absolute: 10 },
    );
  if (place.openingHours !== undefined)
    add(
      draft,
      { name: "opening_hours", type: "string_list", description: "Opening hours per weekday", ptr: p("openingHours") },
      ANY_RULE,
    );
  for (const key of ["businessStatus", "priceLevel", "name", "address", "website", "phone"]) {
    if (place[key] !== undefined && place[key] !== null)
      add(
        draft,
        {
          name: key,
          type: "string",
          description: `The place's ${key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}`,
          ptr: p(key),
        },
        ANY_RULE,
      );
  }
  if (place.description !== undefined && place.description !== null)
    add(
      draft,
      { name: "description", type: "string", description: "The place's description", ptr: p("description") },
      TEXT_RULE,
    );
}

export const MAX_DRAFTED_NAME = 40;

/**
 * snake_case, starting with a letter, ≤ 40 chars (room for a _N suffix), never the reserved name.
 * A long name is shortened by words, not cut: the last word carries the meaning (`…_price`,
 * `…_availability`), so it is kept, and words are dropped from the middle — the leading words
 * usually name the thing — until the name fits.
 */
export function toFieldName(raw: string): string {
  const snake = raw
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  let name = shortenName(snake, MAX_DRAFTED_NAME);
  if (!/^[a-z]/.test(name)) name = shortenName(`f_${name}`, MAX_DRAFTED_NAME);
  if (name === "notable_signals" || name === "f_" || name === "f") name = "field";
  return name;
}

function shortenName(snake: string, max: number): string {
  if (snake.length <= max) return snake;
  const words = snake.split("_").filter(Boolean);
  const last = words.pop() ?? "";
  if (last.length >= max || words.length === 0) return last.slice(0, max).replace(/_+$/g, "");
  // Keep the leading words that fit, then the last word.
  const lead: string[] = [];
  let size = last.length;
  for (const word of words) {
    if (size + word.length + 1 > max) break;
    lead.push(word);
    size += word.length + 1;
  }
  // The first word alone is too long: keep a prefix of it, so the name still starts with the thing.
  if (lead.length === 0) {
    const room = max - last.length - 1;
    if (room >= 3) lead.push((words[0] as string).slice(0, room));
  }
  return [...lead, last].join("_");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

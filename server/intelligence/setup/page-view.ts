import type { TPageBox, TPageView, TPageViewField } from "@/contracts/setup-page-view";
import { answerCssInWorker, type TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { AppError } from "../../errors";
import type { TExtractor, TField } from "../definition";
import { compileRegex, MAX_REGEX_TEXT_CHARS } from "../definition/regex-safety";
import { applyExtractors, resolveJsonPointer } from "../fill";
import { readCapture } from "../refresh/read-capture";
import { describeExtractor } from "./check-draft-anchors";
import { elementsOf, MAX_TEXT, numberQuery, showing, type TLocate } from "./page-elements";
import type { TPriceCandidate } from "./price-candidates";
import { proposeBySameText } from "./propose-reanchor/fallback";
import { parsePageReading, type TPageReading } from "./read-page-for-draft";
import { mainPriceField, watchedCandidate } from "./rebind-price";
import { getSetupState } from "./session";
import { loadSetupPage, type TPageBox as TKeptBox } from "./setup-page-store";

type TSampleLike = { capability?: unknown; input?: unknown; results?: unknown; reading?: unknown };

/**
 * What the page view shows (docs/page-view.md): the sample page made inert, each draft field's value on it and
 * the elements it reads, and the prices the draft passed over — located on the snapshot in one page-worker round
 * (CSS fields by their selector; text and structured fields by the text they read, the k-th element showing it
 * when the text shows it k times). The earlier page (before the last re-read) shows where a field used to be.
 */

function occurrencesBefore(haystack: string, needle: string, end: number): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0 && i < end; i = haystack.indexOf(needle, i + 1)) n++;
  return n;
}

/** How to find what an extractor reads on the snapshot (null: it reads nothing visible there). */
function locate(
  extractor: TExtractor | undefined,
  sample: { document: unknown; mainText: string },
  reading: TPageReading | null,
): TLocate | null {
  if (!extractor) return null;
  if (extractor.kind === "css") return { query: numberQuery(extractor.selector), nth: null };
  if (extractor.kind === "regex") {
    const compiled = compileRegex(extractor.pattern, extractor.flags ?? "");
    if (!compiled.ok) return null;
    const text = sample.mainText.slice(0, MAX_REGEX_TEXT_CHARS);
    const m = compiled.regex.exec(text) as RegExpExecArray | null;
    const group = m ? (m[1] ?? m[0]) : undefined;
    if (!m || !group || group.length > MAX_TEXT) return null;
    const at = m.index + m[0].indexOf(group);
    return { query: showing(group.trim()), nth: occurrencesBefore(text, group.trim(), at) };
  }
  const hit = resolveJsonPointer(sample.document, extractor.pointer);
  if (!hit.found) return null;
  if (typeof hit.value === "string" && hit.value.trim() && hit.value.length <= MAX_TEXT)
    return { query: showing(hit.value.trim()), nth: null };
  if (typeof hit.value === "number" && reading) {
    // A structured price: the price the visible text shows with that amount.
    const shown = [reading.ownPrice, ...reading.otherPrices, ...reading.candidates].find(
      (p) => p && Math.abs(p.amount - (hit.value as number)) < 1e-9 && !/^\d[\d.]*(\s[A-Z]{3})?$/.test(p.text),
    );
    if (shown) return { query: showing(shown.text), nth: null };
  }
  return null;
}

function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "object" && "amount" in value) {
    const m = value as { amount: unknown; currency?: unknown };
    return `${String(m.amount)}${typeof m.currency === "string" ? ` ${m.currency}` : ""}`;
  }
  if (Array.isArray(value)) return value.map(String).join(", ").slice(0, 200);
  return String(value).slice(0, 200);
}

export async function getPageView(
  db: TDb,
  input: { userId: string; sessionId: string; which: "current" | "earlier"; config: TCapabilityConfig },
): Promise<TPageView | null> {
  const state = await getSetupState(db, input);
  const page = await loadSetupPage(db, input);
  if (!page) return null;
  const shown = input.which === "earlier" ? page.earlier : { html: page.html, readAt: page.readAt };
  if (!shown) throw new AppError("NOT_FOUND", "There is no earlier read of this page to show.");
  const sample = (state.sample ?? {}) as TSampleLike;
  const reading = parsePageReading(sample.reading);
  const results = (sample.results ?? {}) as { document?: { mainText?: unknown } };
  const document = results.document ?? {};
  const mainText = typeof results.document?.mainText === "string" ? results.document.mainText : "";
  const definition = state.draft?.definition;
  const fields = definition?.fields ?? [];
  const candidates = reading?.candidates ?? [];

  // The earlier page has no sample of its own: there, fields are located by CSS only (where they used to read).
  const located = (e: TExtractor | undefined) =>
    input.which === "earlier" && e?.kind !== "css" ? null : locate(e, { document, mainText }, reading);
  const fieldWhere = fields.map((f) => located(f.extractor));
  const candidateWhere = candidates.map((c) => located(c.anchor.extractor));
  const queries = [...fieldWhere, ...candidateWhere].flatMap((w) => (w ? [w.query] : []));
  const answers = queries.length ? await answerCssInWorker(shown.html, queries, input.config.fetch.page) : {};

  // What each field reads: on the snapshot (CSS), on the sample's text and document (the rest).
  const capture = readCapture(
    "web.scrape",
    sample.input,
    { ...(sample.results as object), html: shown.html },
    {
      kind: "canonical_url",
    },
  );
  const values = definition ? (await applyExtractors(definition, capture.raw)).values : {};
  const main = definition ? mainPriceField(definition) : undefined;
  const watched = main ? watchedCandidate(main, candidates) : undefined;
  const viewFields: TPageViewField[] = fields.map((f: TField, i) => ({
    name: f.name,
    type: f.type,
    reads: input.which === "earlier" && f.extractor?.kind !== "css" ? null : asText(values[f.name]),
    where: whereOf(f, candidates),
    elements: elementsOf(answers, fieldWhere[i] ?? null),
    proposal: null,
  }));
  if (input.which === "current" && page.earlier) {
    const missing = viewFields.filter((v, i) => v.reads === null && fields[i]?.extractor?.kind === "css");
    // The agent's proposals from the last re-read first (model mode); the same text in one place otherwise.
    const agent = new Map(page.proposals.map((p) => [p.field, p]));
    for (const view of missing) {
      const p = agent.get(view.name);
      if (p) view.proposal = { element: p.element, text: p.text, where: p.where, why: p.why };
    }
    const rest = missing.filter((v) => !v.proposal);
    if (rest.length) await proposeBySameText(rest, fields, { now: page.html, before: page.earlier.html }, input.config);
  }
  const viewCandidates = candidates.map((c, index) => ({
    index,
    label: c.label,
    text: c.text,
    where: c.where,
    watched: c === watched,
    elements: elementsOf(answers, candidateWhere[index] ?? null),
  }));
  return {
    which: input.which,
    url: page.url,
    readAt: shown.readAt.toISOString(),
    truncated: page.truncated,
    hasEarlier: page.earlier !== null,
    html: shown.html,
    fields: viewFields,
    candidates: viewCandidates,
    shot:
      input.which === "current" && page.shot
        ? {
            width: page.shot.width,
            height: page.shot.height,
            takenAt: page.readAt.toISOString(),
            boxes: boxesOf(page.shot.boxes, [
              ...viewFields.flatMap((f) => [...f.elements, ...(f.proposal ? [f.proposal.element] : [])]),
              ...viewCandidates.flatMap((c) => c.elements),
            ]),
          }
        : null,
  };
}

/** The picture's boxes of the elements the view marks (the rest are asked for by a click: `elementAt`). */
function boxesOf(boxes: readonly TKeptBox[], elements: readonly number[]): TPageBox[] {
  const wanted = new Set(elements);
  return boxes
    .filter(([n]) => wanted.has(n))
    .map(([element, x, y, width, height]) => ({ element, x, y, width, height }));
}

/** A field's place in words: the candidate's when it reads one, its own description's "— where", else the extractor. */
function whereOf(field: TField, candidates: readonly TPriceCandidate[]): string {
  const c = watchedCandidate(field, candidates);
  if (c) return c.where;
  const said = /\s—\s(the [^(]+?)(?:\s\(|$)/.exec(field.description)?.[1];
  if (said) return said;
  return field.extractor ? describeExtractor(field.extractor) : "the agent reads it";
}

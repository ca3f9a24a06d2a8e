import { cssQueryKey, looksLikeShell, type TCssAnswer, type TStructuredDocument } from "../../capabilities";
import type { TField, TRecord, TRecordValue, TTrackerDefinition } from "../definition";
import { attentionReasonOf, type TFieldHealth } from "../tracker-store";

/**
 * Field health (docs/field-health.md): a field that read a value before — in an earlier run, or, for a field anchored
 * by an extractor, in the sample it was anchored on — and reads nothing now is a miss, not a change. The miss is
 * counted per field (reset when it reads again) and, after `after` runs in a row, the tracker needs attention. The
 * count rides in the run's one final write; an unchanged page with every field reading writes nothing more.
 */

export type THealthUpdate = { health: TFieldHealth; attentionReason: string | null };

/** How the page was read, for the reason of a miss on a page that script fills. */
export type TPageRead = {
  /** True when a browser rendered the page this run. */
  rendered: boolean;
  /** The tracker's `render` setting (web.scrape), when it has one. */
  mode: string | undefined;
  html: string | undefined;
  document: unknown;
  /** The crawl's answers to the CSS extractors (whether a selector matched an element at all). */
  css: Record<string, TCssAnswer> | undefined;
};

const isEmpty = (value: TRecordValue | undefined) => value === null || value === undefined || value === "";

/**
 * The record a diff sees: a field that read a value before and reads nothing now keeps its last value (a miss is not a
 * change). The refresh and replay both diff through it, so replay reproduces what the refresh recorded.
 */
export function carryMissingFields(def: TTrackerDefinition, previous: TRecord | null, record: TRecord): TRecord {
  if (!previous) return record;
  const carried: TRecord = { ...record };
  for (const field of def.fields) {
    const before = previous[field.name];
    if (isEmpty(record[field.name]) && !isEmpty(before)) carried[field.name] = before ?? null;
  }
  return carried;
}

/**
 * After a fill: the new health, and the record to diff and keep — each counted miss carries its last value, so a
 * field that stopped reading records no change and the timeline continues where it was once it reads again.
 */
export function nextFieldHealth(input: {
  def: TTrackerDefinition;
  previous: TRecord | null;
  record: TRecord;
  warnings: string[];
  prior: TFieldHealth | null;
  page: TPageRead;
  after: number;
}): THealthUpdate & { carried: TRecord } {
  const carried = carryMissingFields(input.def, input.previous, input.record);
  const misses: TFieldHealth["misses"] = {};
  let read = 0;
  let shell: boolean | undefined;
  const isShell = () => {
    shell ??= looksLikeShellPage(input.page);
    return shell;
  };
  for (const field of input.def.fields) {
    const value = input.record[field.name];
    if (!isEmpty(value)) {
      read++;
      continue;
    }
    const before = input.previous?.[field.name];
    const counted =
      !isEmpty(before) ||
      Object.hasOwn(input.prior?.misses ?? {}, field.name) ||
      (input.previous === null && field.extractor !== undefined);
    if (!counted) continue;
    const warning = input.warnings.find((w) => w.startsWith(`${field.name}: `))?.slice(field.name.length + 2);
    misses[field.name] = {
      runs: (input.prior?.misses[field.name]?.runs ?? 0) + 1,
      why: whyMissing(field, warning, input.page, isShell),
    };
  }
  const health = { read, total: input.def.fields.length, misses };
  return { health, attentionReason: attentionReasonOf(health, input.after), carried };
}

/**
 * An unchanged page (same document, same definition) reads what it read last time: each miss counts one more run.
 * Null when nothing misses, so such a run's final write stays as it was.
 */
export function carryFieldHealth(prior: TFieldHealth | null, after: number): THealthUpdate | null {
  if (!prior || Object.keys(prior.misses).length === 0) return null;
  const misses: TFieldHealth["misses"] = {};
  for (const [field, miss] of Object.entries(prior.misses)) misses[field] = { ...miss, runs: miss.runs + 1 };
  const health = { ...prior, misses };
  return { health, attentionReason: attentionReasonOf(health, after) };
}

function whyMissing(field: TField, warning: string | undefined, page: TPageRead, isShell: () => boolean): string {
  const e = field.extractor;
  if (e?.kind === "css") {
    const key = cssQueryKey({
      selector: e.selector,
      all: field.type === "string_list",
      ...(e.attribute ? { attribute: e.attribute } : {}),
    });
    const answer = page.css && Object.hasOwn(page.css, key) ? page.css[key] : undefined;
    const matchedNothing = answer ? !answer.ok : !warning || warning.includes("matched nothing");
    // Read without a browser, and either an app shell or the element is there but empty while the page has scripts.
    const scripted =
      !page.rendered && page.html !== undefined && (isShell() || (!matchedNothing && /<script\b/i.test(page.html)));
    if (scripted) {
      const how =
        page.mode === "never" ? "render: never" : `render: ${page.mode ?? "auto"}, and no browser is configured`;
      return `the page's ${field.name} is filled in by script; this tracker reads pages without a browser (${how})`;
    }
    if (matchedNothing) return `\`${e.selector}\` matches nothing on the page`;
    return `\`${e.selector}\` matches an element with no readable value${warning ? ` (${warning})` : ""}`;
  }
  if (e?.kind === "json_pointer") return `the JSON path \`${e.pointer}\` is missing`;
  if (e?.kind === "regex") return `the pattern \`${e.pattern}\` matches nothing in the page's text`;
  return warning ?? "the page gives no value for it";
}

function looksLikeShellPage(page: TPageRead): boolean {
  if (page.html === undefined || !page.document || typeof page.document !== "object") return false;
  const doc = page.document as Partial<TStructuredDocument>;
  if (!Array.isArray(doc.prices) || !Array.isArray(doc.offers) || typeof doc.mainText !== "string") return false;
  return looksLikeShell({ kind: "html", html: page.html, document: doc as TStructuredDocument }).shell;
}

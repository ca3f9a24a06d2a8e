import {
  answerCssInWorker,
  cssQueryKey,
  DEFAULT_PAGE_LIMITS,
  type TCssAnswer,
  type TCssQuery,
} from "../../capabilities";
import type { TExtractor, TField } from "../definition/field-schema";
import type { TRecordValue } from "../definition/record-types";
import { compileRegex, MAX_REGEX_TEXT_CHARS } from "../definition/regex-safety";
import type { TTrackerDefinition } from "../definition/tracker-definition-schema";
import { coerceValue } from "./coerce-value";
import { resolveJsonPointer } from "./json-pointer";

/**
 * What a capability call produced: its JSON result, plus for web pages the main text, the answers to
 * the CSS queries the crawl was asked (one parse, in the page worker) and the page HTML.
 */
export type TRawCapture = { json: unknown; html?: string; text?: string; css?: Record<string, TCssAnswer> };

export type TExtractionResult = {
  /** One entry per field that has an extractor (value or null), keyed by field name. */
  values: Record<string, TRecordValue>;
  /** Readable lines ("price: CSS selector span.price matched nothing"); never fatal. */
  warnings: string[];
};

const MAX_LIST_MATCHES = 100;

/** The CSS queries a definition's extractors ask (the refresh passes them to the crawl). */
export function cssQueriesOf(definition: TTrackerDefinition): TCssQuery[] {
  const queries: TCssQuery[] = [];
  for (const field of definition.fields) {
    const e = field.extractor;
    if (e?.kind !== "css") continue;
    queries.push({
      selector: e.selector,
      all: field.type === "string_list",
      ...(e.attribute ? { attribute: e.attribute } : {}),
    });
  }
  return queries;
}

/**
 * Fills every field that carries an extractor, by code. Failures become null plus a warning.
 * CSS answers come with the capture; queries it lacks (a caller with only HTML) are answered in the
 * page worker — never by parsing on this thread (docs/design.md §5).
 */
export async function applyExtractors(definition: TTrackerDefinition, raw: TRawCapture): Promise<TExtractionResult> {
  const values: Record<string, TRecordValue> = {};
  const warnings: string[] = [];
  const missing = cssQueriesOf(definition).filter((q) => !raw.css || !Object.hasOwn(raw.css, cssQueryKey(q)));
  let css = raw.css ?? {};
  if (missing.length && raw.html !== undefined) {
    css = { ...css, ...(await answerCssInWorker(raw.html, missing, DEFAULT_PAGE_LIMITS)) };
  }

  for (const field of definition.fields) {
    if (!field.extractor) continue;
    const extracted = extract(field, field.extractor, raw, css);
    if (!extracted.found) {
      values[field.name] = null;
      warnings.push(`${field.name}: ${extracted.reason}`);
      continue;
    }
    const coerced = coerceValue(field, extracted.value);
    values[field.name] = coerced.ok ? coerced.value : null;
    if (!coerced.ok) warnings.push(`${field.name}: ${coerced.reason}`);
  }
  return { values, warnings };
}

type TExtracted = { found: true; value: unknown } | { found: false; reason: string };

function extract(field: TField, extractor: TExtractor, raw: TRawCapture, css: Record<string, TCssAnswer>): TExtracted {
  const wantsList = field.type === "string_list";
  switch (extractor.kind) {
    case "json_pointer": {
      const hit = resolveJsonPointer(raw.json, extractor.pointer);
      return hit.found ? hit : { found: false, reason: `JSON pointer "${extractor.pointer}" matched nothing` };
    }
    case "css": {
      const key = cssQueryKey({
        selector: extractor.selector,
        all: wantsList,
        ...(extractor.attribute ? { attribute: extractor.attribute } : {}),
      });
      const answer = Object.hasOwn(css, key) ? css[key] : undefined;
      if (!answer) return { found: false, reason: "no page HTML to run the CSS selector against" };
      if (!answer.ok) {
        return {
          found: false,
          reason:
            answer.reason === "invalid_selector"
              ? `CSS selector "${extractor.selector}" could not be applied`
              : `CSS selector "${extractor.selector}" matched nothing`,
        };
      }
      const texts = answer.values.slice(0, MAX_LIST_MATCHES);
      return { found: true, value: wantsList ? texts.filter((t) => t !== null) : texts[0] };
    }
    case "regex": {
      if (raw.text === undefined) return { found: false, reason: "no page text to run the regex against" };
      // Linear-time engine (regex-safety.ts): the pattern came from a definition, the text from a page.
      const compiled = compileRegex(extractor.pattern, extractor.flags ?? "");
      if (!compiled.ok) return { found: false, reason: `regex /${extractor.pattern}/ cannot run: ${compiled.problem}` };
      const regex = compiled.regex;
      // The cap bounds the work per field: linear in at most this many characters.
      const text = raw.text.slice(0, MAX_REGEX_TEXT_CHARS);
      const group = extractor.group ?? (regex.groupCount() > 0 ? 1 : 0);
      const pick = (m: RegExpMatchArray): string | undefined =>
        typeof group === "number" ? m[group] : m.groups && Object.hasOwn(m.groups, group) ? m.groups[group] : undefined;
      if (wantsList) {
        const values: string[] = [];
        let matched = 0;
        for (const m of regex.matchAll(text)) {
          const value = pick(m);
          if (value !== undefined) values.push(value);
          if (++matched >= MAX_LIST_MATCHES) break;
        }
        if (matched === 0) return { found: false, reason: `regex /${extractor.pattern}/ matched nothing` };
        return { found: true, value: values };
      }
      const match = regex.exec(text) as RegExpExecArray | null;
      if (!match) return { found: false, reason: `regex /${extractor.pattern}/ matched nothing` };
      const value = pick(match);
      return value === undefined
        ? { found: false, reason: `regex group ${String(group)} did not participate in the match` }
        : { found: true, value };
    }
  }
}

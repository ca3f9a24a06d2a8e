import { parse as parseHtml } from "node-html-parser";
import type { TExtractor, TField } from "../definition/field-schema";
import type { TRecordValue } from "../definition/record-types";
import { compileRegex, MAX_REGEX_TEXT_CHARS } from "../definition/regex-safety";
import type { TTrackerDefinition } from "../definition/tracker-definition-schema";
import { coerceValue } from "./coerce-value";
import { resolveJsonPointer } from "./json-pointer";

/** What a capability call produced: its JSON result, plus the page HTML and main text for web pages. */
export type TRawCapture = { json: unknown; html?: string; text?: string };

export type TExtractionResult = {
  /** One entry per field that has an extractor (value or null), keyed by field name. */
  values: Record<string, TRecordValue>;
  /** Readable lines ("price: CSS selector span.price matched nothing"); never fatal. */
  warnings: string[];
};

const MAX_LIST_MATCHES = 100;

/** Fills every field that carries an extractor, by code. Failures become null plus a warning. */
export function applyExtractors(definition: TTrackerDefinition, raw: TRawCapture): TExtractionResult {
  const values: Record<string, TRecordValue> = {};
  const warnings: string[] = [];
  // Parse the HTML once, lazily: only CSS extractors need it.
  let root: ReturnType<typeof parseHtml> | null | undefined;
  const htmlRoot = () => {
    if (root === undefined) root = raw.html === undefined ? null : parseHtml(raw.html);
    return root;
  };

  for (const field of definition.fields) {
    if (!field.extractor) continue;
    const extracted = extract(field, field.extractor, raw, htmlRoot);
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

function extract(
  field: TField,
  extractor: TExtractor,
  raw: TRawCapture,
  htmlRoot: () => ReturnType<typeof parseHtml> | null,
): TExtracted {
  const wantsList = field.type === "string_list";
  switch (extractor.kind) {
    case "json_pointer": {
      const hit = resolveJsonPointer(raw.json, extractor.pointer);
      return hit.found ? hit : { found: false, reason: `JSON pointer "${extractor.pointer}" matched nothing` };
    }
    case "css": {
      const root = htmlRoot();
      if (!root) return { found: false, reason: "no page HTML to run the CSS selector against" };
      const read = (el: ReturnType<typeof root.querySelectorAll>[number]) =>
        extractor.attribute ? (el.getAttribute(extractor.attribute) ?? null) : el.text;
      let elements: ReturnType<typeof root.querySelectorAll>;
      try {
        elements = wantsList
          ? root.querySelectorAll(extractor.selector)
          : [root.querySelector(extractor.selector)].filter((e) => e !== null);
      } catch {
        return { found: false, reason: `CSS selector "${extractor.selector}" could not be applied` };
      }
      if (elements.length === 0)
        return { found: false, reason: `CSS selector "${extractor.selector}" matched nothing` };
      const texts = elements.slice(0, MAX_LIST_MATCHES).map(read);
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

import { z } from "zod";
import { buildRecordSchema, type TRecordSchema } from "../definition/build-record-schema";
import { NOTABLE_SIGNALS } from "../definition/field-schema";
import type { TRecord } from "../definition/record-types";
import { MAX_NOTABLE_SIGNAL_CHARS, MAX_NOTABLE_SIGNALS } from "../definition/reserved-fields";
import type { TTrackerDefinition } from "../definition/tracker-definition-schema";
import { formatIssues } from "./format-issues";
import type { TValidation } from "./structured-call";

/** The model's part of the record: only the fields without extractors, plus notable_signals. */
export function buildFillOutputSchema(
  definition: TTrackerDefinition,
  modelFields: readonly string[],
): { zod: TRecordSchema; json: Record<string, unknown> } {
  const zod = buildRecordSchema(definition, { onlyFields: modelFields });
  // The same zod schema (a locked, frozen definition's) → the same JSON schema, converted once; frozen, since
  // every call that fills under that version shares it.
  const cached = JSON_SCHEMAS.get(zod);
  if (cached) return { zod, json: cached };
  const json = z.toJSONSchema(zod, { target: "draft-7" }) as Record<string, unknown>;
  if (Object.isFrozen(definition)) JSON_SCHEMAS.set(zod, deepFreeze(json));
  return { zod, json };
}

const JSON_SCHEMAS = new WeakMap<TRecordSchema, Record<string, unknown>>();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Strict validation (invented keys and wrong types are issues), then code-side tidying. */
export function validateFillOutput(
  definition: TTrackerDefinition,
  schema: TRecordSchema,
  value: unknown,
): TValidation<TRecord> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, issues: formatIssues(parsed.error.issues) };
  return { ok: true, value: tidyRecord(definition, parsed.data as TRecord) };
}

/** Whitespace-collapse strings, and keep notable_signals short, unique and bounded. */
export function tidyRecord(definition: TTrackerDefinition, record: TRecord): TRecord {
  const types = new Map(definition.fields.map((f) => [f.name, f.type]));
  const out: TRecord = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === NOTABLE_SIGNALS && Array.isArray(value)) {
      const seen = new Set<string>();
      const signals: string[] = [];
      for (const entry of value) {
        const text = collapse(entry).slice(0, MAX_NOTABLE_SIGNAL_CHARS);
        const k = text.toLowerCase();
        if (text && !seen.has(k)) {
          seen.add(k);
          signals.push(text);
        }
      }
      out[key] = signals.slice(0, MAX_NOTABLE_SIGNALS);
    } else if (typeof value === "string" && types.get(key) === "string") {
      out[key] = collapse(value) || null;
    } else if (Array.isArray(value) && types.get(key) === "string_list") {
      out[key] = value.map(collapse).filter((v) => v !== "");
    } else {
      out[key] = value;
    }
  }
  return out;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

import { NOTABLE_SIGNALS } from "../definition/field-schema";
import type { TRecord, TRecordValue } from "../definition/record-types";
import type { TTrackerDefinition } from "../definition/tracker-definition-schema";
import { comparisonKey, signalKey } from "./normalise-value";

export type TDelta = { from: TRecordValue; to: TRecordValue };
/** Only fields that really changed. notable_signals, when present, is { from: [], to: [added…] }. */
export type TDeltas = Record<string, TDelta>;

/**
 * Deterministic compare of a new record against the baseline (the last material record).
 * prev null (first run) → every non-empty field appears as { from: null, to }.
 * Values in the deltas are the records' own values (not the normalised forms), for display.
 * Fields missing from prev (added in a newer definition version) compare as null.
 */
export function diffRecords(prev: TRecord | null, next: TRecord, def: TTrackerDefinition): TDeltas {
  const deltas: TDeltas = {};
  for (const field of def.fields) {
    const from = prev?.[field.name] ?? null;
    const to = next[field.name] ?? null;
    if (comparisonKey(field, from) !== comparisonKey(field, to)) deltas[field.name] = { from, to };
  }

  const previous = new Set(asStrings(prev?.[NOTABLE_SIGNALS]).map(signalKey));
  const added: string[] = [];
  for (const signal of asStrings(next[NOTABLE_SIGNALS])) {
    const key = signalKey(signal);
    if (key === "" || previous.has(key)) continue;
    previous.add(key); // also dedupes within the new record
    added.push(signal);
  }
  if (added.length > 0) deltas[NOTABLE_SIGNALS] = { from: [], to: added };
  return deltas;
}

function asStrings(value: TRecordValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

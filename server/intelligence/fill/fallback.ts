import { NOTABLE_SIGNALS } from "../definition/field-schema";
import type { TRecord, TRecordValue } from "../definition/record-types";
import type { TTrackerDefinition } from "../definition/tracker-definition-schema";

/**
 * Rules mode (no model configured): extractor values stand, every other field is null and
 * notable_signals is empty. Deterministic, zero model calls.
 */
export function fillRecordRulesMode(definition: TTrackerDefinition, extracted: Record<string, TRecordValue>): TRecord {
  const record: TRecord = {};
  for (const field of definition.fields) record[field.name] = extracted[field.name] ?? null;
  record[NOTABLE_SIGNALS] = [];
  return record;
}

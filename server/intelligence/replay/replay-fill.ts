import type { LanguageModel } from "ai";
import { sanitizeForStorage } from "../../lib/sanitize-text";
import { effectiveFields, NOTABLE_SIGNALS, type TRecord, type TTrackerDefinition } from "../definition";
import { applyExtractors, fillRecord, type TModelUsage, type TRawCapture, ZERO_USAGE } from "../fill";
import type { TReplayBasis } from "./replay-basis";

export type TReplayFillResult = {
  record: TRecord;
  modelCalls: number;
  usage: TModelUsage;
  /** Fields only the model could fill that nobody asked (rules mode, or the budget is spent). */
  wouldAsk: string[];
};

/**
 * The fill step of a replay (docs/replay.md): extractor fields by code, as the refresh fills them; a field the model
 * filled keeps the value it was given when neither the field nor the decision changed since (same fill key), so
 * replaying costs no model call for it. Anything else needs the model: one fill call when `mayAsk` allows it,
 * otherwise the field is null (as rules mode would fill it) and listed as "would ask the agent".
 */
export async function replayFill(input: {
  def: TTrackerDefinition;
  raw: TRawCapture;
  basis: TReplayBasis | null;
  fillKeys: Record<string, string>;
  model: LanguageModel | null;
  mayAsk: () => boolean;
  decision: string;
  source: string;
  beforeModelCall: () => Promise<void>;
}): Promise<TReplayFillResult> {
  const { def, basis } = input;
  const { values } = await applyExtractors(def, input.raw);
  const record: TRecord = {};
  const needs: string[] = [];
  for (const field of effectiveFields(def)) {
    if (field.extractor) {
      record[field.name] = values[field.name] ?? null;
    } else if (basis && basis.fillKeys[field.name] === input.fillKeys[field.name] && field.name in basis.observed) {
      record[field.name] = (basis.observed[field.name] ?? null) as TRecord[string];
    } else {
      needs.push(field.name);
    }
  }
  if (needs.length === 0) return { record: sanitizeForStorage(record), modelCalls: 0, usage: ZERO_USAGE, wouldAsk: [] };
  // Only the reserved notable_signals is new (a decision reworded): rules mode's empty list, no call worth making.
  const modelNeeded = needs.some((name) => name !== NOTABLE_SIGNALS);
  if (!modelNeeded || input.model === null || !input.mayAsk()) {
    for (const name of needs) record[name] = name === NOTABLE_SIGNALS ? [] : null;
    return {
      record: sanitizeForStorage(record),
      modelCalls: 0,
      usage: ZERO_USAGE,
      wouldAsk: modelNeeded ? needs.filter((n) => n !== NOTABLE_SIGNALS) : [],
    };
  }
  const filled = await fillRecord({
    def,
    raw: input.raw,
    model: input.model,
    decision: input.decision,
    source: input.source,
    beforeModelCall: input.beforeModelCall,
  });
  for (const name of needs) record[name] = filled.record[name] ?? null;
  return { record: sanitizeForStorage(record), modelCalls: filled.modelCalls, usage: filled.usage, wouldAsk: [] };
}

import type { LanguageModel } from "ai";
import { sanitizeForStorage } from "../../lib/sanitize-text";
import { buildRecordSchema } from "../definition/build-record-schema";
import { NOTABLE_SIGNALS } from "../definition/field-schema";
import type { TRecord } from "../definition/record-types";
import { NOTABLE_SIGNALS_FIELD } from "../definition/reserved-fields";
import type { TTrackerDefinition } from "../definition/tracker-definition-schema";
import { applyExtractors, type TRawCapture } from "./apply-extractors";
import { fillRecordRulesMode } from "./fallback";
import { formatIssues } from "./format-issues";
import { type TModelUsage, ZERO_USAGE } from "./model-usage";
import { buildFillPrompt, buildFillRepairMessage, contentForModel, FILL_INSTRUCTIONS } from "./prompt";
import { buildFillOutputSchema, validateFillOutput } from "./schema";
import { callStructured, IntelligenceModelError } from "./structured-call";

export type TFillRecordInput = {
  def: TTrackerDefinition;
  raw: TRawCapture;
  /** null = rules mode: no model call, non-extractor fields stay null. */
  model: LanguageModel | null;
  /** Transport retries per model call (the one validation repair is separate and always at most one). */
  maxRetries?: number;
  /** The tracker's question; helps the model decide what belongs in notable_signals. */
  decision?: string;
  /** Where the data came from, shown to the model, e.g. "web page https://…" (default "the tracked page"). */
  source?: string;
  abortSignal?: AbortSignal;
  /** Runs once, just before the model would be called (never in rules mode or when extractors fill every
   * field): the monthly budget check (docs/design.md §9). A throw stops the step before any call. */
  beforeModelCall?: () => Promise<void>;
};

export type TFillRecordResult = {
  /** Complete and valid against buildRecordSchema(def): every effective field, in definition order. */
  record: TRecord;
  modelCalls: number;
  usage: TModelUsage;
  /** Extractor misses and coercion failures ("price: CSS selector … matched nothing"). */
  warnings: string[];
};

/**
 * Conforms raw capability data to the locked definition. Fields with extractors are filled by code;
 * the rest (and notable_signals) by ONE structured-output call whose schema contains only those
 * fields. The answer is validated strictly; an invalid answer gets one repair call, then
 * IntelligenceModelError (task "fill"). Throws, never returns, invalid data.
 */
export async function fillRecord(input: TFillRecordInput): Promise<TFillRecordResult> {
  const { def, raw, model } = input;
  const { values: extracted, warnings } = await applyExtractors(def, raw);
  const modelFields = def.fields.filter((f) => !f.extractor);

  if (model === null || modelFields.length === 0) {
    return { record: finalise(def, fillRecordRulesMode(def, extracted)), modelCalls: 0, usage: ZERO_USAGE, warnings };
  }

  await input.beforeModelCall?.();
  const schema = buildFillOutputSchema(
    def,
    modelFields.map((f) => f.name),
  );
  const fieldsForPrompt = [...modelFields, NOTABLE_SIGNALS_FIELD];
  const { value, modelCalls, usage } = await callStructured({
    task: "fill",
    model,
    instructions: FILL_INSTRUCTIONS,
    prompt: buildFillPrompt({
      decision: input.decision,
      fields: fieldsForPrompt,
      content: contentForModel(raw),
      source: input.source ?? "the tracked page",
    }),
    schema: schema.json,
    schemaName: "tracker_record",
    validate: (answer) => validateFillOutput(def, schema.zod, answer),
    repairMessage: buildFillRepairMessage,
    maxRetries: input.maxRetries ?? 2,
    abortSignal: input.abortSignal,
  });

  const merged: TRecord = {};
  for (const field of def.fields)
    merged[field.name] = field.extractor ? (extracted[field.name] ?? null) : (value[field.name] ?? null);
  merged[NOTABLE_SIGNALS] = value[NOTABLE_SIGNALS] ?? [];
  try {
    return { record: finalise(def, merged), modelCalls, usage, warnings };
  } catch (error) {
    throw new IntelligenceModelError({
      task: "fill",
      reason: "invalid_output",
      issues: error instanceof Error ? [error.message] : [],
      modelCalls,
      usage,
      cause: error,
    });
  }
}

/**
 * Last guard: the assembled record must validate against the full record schema, and carry only text
 * the database can store (page or model text with a NUL would fail every later refresh: docs/design.md §8).
 */
function finalise(def: TTrackerDefinition, record: TRecord): TRecord {
  const clean = sanitizeForStorage(record);
  const parsed = buildRecordSchema(def).safeParse(clean);
  if (!parsed.success) throw new Error(`assembled record is invalid: ${formatIssues(parsed.error.issues).join("; ")}`);
  return clean;
}

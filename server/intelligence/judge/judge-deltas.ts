import type { LanguageModel } from "ai";
import type { TDeltas } from "../diff/diff-records";
import { type TModelUsage, ZERO_USAGE } from "../fill/model-usage";
import { callStructured } from "../fill/structured-call";
import type { TContextChunk } from "./context-retriever";
import { judgeDeltasRulesMode } from "./fallback";
import {
  buildJudgePrompt,
  buildJudgeRepairMessage,
  excerptLabel,
  JUDGE_INSTRUCTIONS,
  MAX_CONTEXT_CHUNKS,
} from "./prompt";
import { buildJudgeJsonSchema, type TJudgeVerdict, validateJudgeOutput } from "./schema";

export type TJudgeDeltasInput = {
  decision: string;
  /** Only the deltas code left undecided (see pickUndecided). */
  deltas: TDeltas;
  /** Per field, what it means (see describeFieldsForJudge). */
  fieldDescriptions: Record<string, string>;
  /** Retrieved context-file chunks; untrusted, wrapped as such in the prompt, cited by label. */
  context: TContextChunk[];
  /** null = rules mode: every delta becomes notable, no call. */
  model: LanguageModel | null;
  /** Transport retries per call; the validation repair is separate and at most one. */
  maxRetries?: number;
  abortSignal?: AbortSignal;
  /** Runs once, just before the model would be called (never in rules mode or with nothing to judge): the
   * monthly budget check (docs/design.md §9). A throw stops the step before any call. */
  beforeModelCall?: () => Promise<void>;
};

export type TJudgeDeltasResult = {
  verdicts: Record<string, TJudgeVerdict>;
  modelCalls: number;
  usage: TModelUsage;
};

/**
 * ONE structured-output call judges all undecided deltas together. Output is validated: unknown
 * fields dropped, a missing field or bad verdict → one repair call → IntelligenceModelError
 * (task "judge"). No deltas → no call.
 */
export async function judgeDeltas(input: TJudgeDeltasInput): Promise<TJudgeDeltasResult> {
  const names = Object.keys(input.deltas);
  if (names.length === 0) return { verdicts: {}, modelCalls: 0, usage: ZERO_USAGE };
  if (input.model === null) return { verdicts: judgeDeltasRulesMode(input.deltas), modelCalls: 0, usage: ZERO_USAGE };
  await input.beforeModelCall?.();

  const context = input.context.slice(0, MAX_CONTEXT_CHUNKS);
  const labels = context.map((_, i) => excerptLabel(i));
  const { value, modelCalls, usage } = await callStructured({
    task: "judge",
    model: input.model,
    instructions: JUDGE_INSTRUCTIONS,
    prompt: buildJudgePrompt({ ...input, context }),
    schema: buildJudgeJsonSchema(names, labels),
    schemaName: "change_verdicts",
    validate: (answer) => validateJudgeOutput(names, answer, labels),
    repairMessage: buildJudgeRepairMessage,
    maxRetries: input.maxRetries ?? 2,
    abortSignal: input.abortSignal,
  });
  // Labels back to the chunks they named.
  const verdicts: Record<string, TJudgeVerdict> = {};
  for (const [name, answer] of Object.entries(value)) {
    const { cites, ...verdict } = answer;
    const named = (cites ?? []).flatMap((c) => {
      const chunk = context[labels.indexOf(c.excerpt)];
      return chunk ? [{ chunkId: chunk.id, quote: c.quote }] : [];
    });
    verdicts[name] = named.length > 0 ? { ...verdict, cites: named } : verdict;
  }
  return { verdicts, modelCalls, usage };
}

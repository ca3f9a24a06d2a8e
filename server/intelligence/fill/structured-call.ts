import {
  generateText,
  type JSONSchema7,
  jsonSchema,
  type LanguageModel,
  type LanguageModelUsage,
  NoObjectGeneratedError,
  Output,
} from "ai";
import { AppError } from "../../errors";
import { addUsage, type TModelUsage, ZERO_USAGE } from "./model-usage";

export type TIntelligenceTask = "fill" | "judge" | "reanchor";

const TASK_WORDS: Record<TIntelligenceTask, string> = {
  fill: "read the page into the tracker's fields",
  judge: "judge the changes",
  reanchor: "find where the fields' values are on the page now",
};

/**
 * A model step that could not produce valid output. Carries the calls and tokens spent so the run
 * record stays accurate even on failure. reason: "invalid_output" (answered twice, both invalid) or
 * "model_failed" (the provider errored after its bounded retries).
 */
export class IntelligenceModelError extends AppError {
  override name = "IntelligenceModelError";
  readonly task: TIntelligenceTask;
  readonly reason: "invalid_output" | "model_failed";
  readonly issues: string[];
  readonly modelCalls: number;
  readonly usage: TModelUsage;

  constructor(args: {
    task: TIntelligenceTask;
    reason: "invalid_output" | "model_failed";
    issues: string[];
    modelCalls: number;
    usage: TModelUsage;
    cause?: unknown;
  }) {
    const what = TASK_WORDS[args.task];
    super(
      "UPSTREAM_FAILED",
      args.reason === "invalid_output"
        ? `The AI model could not ${what}: its answer did not match the locked definition, even after a retry.`
        : `The AI model could not ${what}: the model call failed.`,
      { cause: args.cause, details: { task: args.task, reason: args.reason, issues: args.issues } },
    );
    this.task = args.task;
    this.reason = args.reason;
    this.issues = args.issues;
    this.modelCalls = args.modelCalls;
    this.usage = args.usage;
  }
}

export type TValidation<T> = { ok: true; value: T } | { ok: false; issues: string[] };

export type TStructuredCallInput<T> = {
  task: TIntelligenceTask;
  model: LanguageModel;
  instructions: string;
  prompt: string;
  /** JSON schema sent to the provider (strict-mode friendly). Validation is ours, via `validate`. */
  schema: Record<string, unknown>;
  schemaName: string;
  validate: (value: unknown) => TValidation<T>;
  repairMessage: (issues: string[]) => string;
  /** Transport-level retries per call (rate limits, 5xx), handled by the AI SDK. */
  maxRetries: number;
  abortSignal?: AbortSignal;
};

/**
 * One structured-output call, validated by our own zod schema; on invalid output exactly one repair
 * call that shows the model its answer and the issues; then a typed error. Never returns invalid data.
 */
export async function callStructured<T>(
  input: TStructuredCallInput<T>,
): Promise<{ value: T; modelCalls: number; usage: TModelUsage }> {
  let usage = ZERO_USAGE;
  let modelCalls = 0;
  let issues: string[] = [];
  let previousAnswer: string | null = null;

  for (let attempt = 0; attempt < 2; attempt++) {
    modelCalls++;
    const answer: TAttempt = await runOnce(input, previousAnswer === null ? null : { previousAnswer, issues });
    usage = addUsage(usage, answer.usage);
    if (answer.kind === "failed") {
      throw new IntelligenceModelError({
        task: input.task,
        reason: "model_failed",
        issues: [answer.message],
        modelCalls,
        usage,
        cause: answer.error,
      });
    }
    if (answer.kind === "unparseable") {
      issues = ["the answer was not a single valid JSON object"];
    } else {
      const validated = input.validate(answer.value);
      if (validated.ok) return { value: validated.value, modelCalls, usage };
      issues = validated.issues;
    }
    previousAnswer = answer.text;
  }
  throw new IntelligenceModelError({ task: input.task, reason: "invalid_output", issues, modelCalls, usage });
}

type TAttempt =
  | { kind: "answered"; value: unknown; text: string; usage: LanguageModelUsage | undefined }
  | { kind: "unparseable"; text: string; usage: LanguageModelUsage | undefined }
  | { kind: "failed"; message: string; error: unknown; usage: undefined };

async function runOnce<T>(
  input: TStructuredCallInput<T>,
  repair: { previousAnswer: string; issues: string[] } | null,
): Promise<TAttempt> {
  try {
    const result = await generateText({
      model: input.model,
      instructions: input.instructions,
      ...(repair === null
        ? { prompt: input.prompt }
        : {
            messages: [
              { role: "user" as const, content: input.prompt },
              { role: "assistant" as const, content: repair.previousAnswer },
              { role: "user" as const, content: input.repairMessage(repair.issues) },
            ],
          }),
      output: Output.object({ schema: jsonSchema<unknown>(input.schema as JSONSchema7), name: input.schemaName }),
      maxRetries: input.maxRetries,
      abortSignal: input.abortSignal,
    });
    return { kind: "answered", value: result.output, text: result.text, usage: result.totalUsage };
  } catch (error) {
    if (NoObjectGeneratedError.isInstance(error))
      return { kind: "unparseable", text: error.text ?? "", usage: error.usage };
    return { kind: "failed", message: errorMessage(error), error, usage: undefined };
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

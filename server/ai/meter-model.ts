import { wrapLanguageModel } from "ai";
import type { TLanguageModel } from "./provider";

export type TModelSpend = { modelCalls: number; inputTokens: number; outputTokens: number };

/**
 * A model that counts what it costs: every call (generate or stream, retries included) and the tokens the
 * provider reports, read from the call's result or its stream's finish part. For model steps that do not report
 * their own usage (the setup drafter's streamText, the feed enhancement), so the usage ledger sees every call
 * (docs/design.md §9) without the step knowing about it.
 */
export function meterModel(model: TLanguageModel): { model: TLanguageModel; spent: () => TModelSpend } {
  const spent: TModelSpend = { modelCalls: 0, inputTokens: 0, outputTokens: 0 };
  const add = (usage: { inputTokens?: { total?: number }; outputTokens?: { total?: number } } | undefined) => {
    spent.inputTokens += usage?.inputTokens?.total ?? 0;
    spent.outputTokens += usage?.outputTokens?.total ?? 0;
  };
  const metered = wrapLanguageModel({
    model,
    middleware: {
      wrapGenerate: async ({ doGenerate }) => {
        spent.modelCalls++;
        const result = await doGenerate();
        add(result.usage);
        return result;
      },
      wrapStream: async ({ doStream }) => {
        spent.modelCalls++;
        const { stream, ...rest } = await doStream();
        return {
          ...rest,
          stream: stream.pipeThrough(
            new TransformStream({
              transform(part, controller) {
                if (part.type === "finish") add(part.usage);
                controller.enqueue(part);
              },
            }),
          ),
        };
      },
    },
  });
  return { model: metered, spent: () => ({ ...spent }) };
}

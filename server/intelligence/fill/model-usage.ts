import type { LanguageModelUsage } from "ai";

/** Token accounting the run record keeps; summed over every model call of a step. */
export type TModelUsage = { inputTokens: number; outputTokens: number; totalTokens: number };

export const ZERO_USAGE: TModelUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

export function addUsage(
  total: TModelUsage,
  usage: Partial<LanguageModelUsage> | TModelUsage | undefined,
): TModelUsage {
  if (!usage) return total;
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  return {
    inputTokens: total.inputTokens + input,
    outputTokens: total.outputTokens + output,
    totalTokens: total.totalTokens + (usage.totalTokens ?? input + output),
  };
}

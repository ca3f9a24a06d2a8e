import type { TModelSpend } from "../ai";
import type { TDb, TTx } from "../db";

export type { TModelSpend };

export type TModelUsageKind = "setup" | "enhancement" | "replay" | "embedding";

/**
 * Records model calls made outside a refresh run (the setup drafter, the feed enhancement, context-file embeddings,
 * replays) in the usage ledger, for the monthly token budget and "usage this month" (a refresh records its own on
 * its RefreshRun). Nothing is written when nothing was spent.
 */
export async function recordModelUsage(
  db: TDb | TTx,
  input: { userId: string; trackerId?: string | null; kind: TModelUsageKind; spend: TModelSpend },
): Promise<void> {
  const { modelCalls, inputTokens, outputTokens } = input.spend;
  if (modelCalls <= 0 && inputTokens <= 0 && outputTokens <= 0) return;
  await db.modelUsage.create({
    data: {
      userId: input.userId,
      trackerId: input.trackerId ?? null,
      kind: input.kind,
      modelCalls: Math.max(0, Math.round(modelCalls)),
      inputTokens: Math.max(0, Math.round(inputTokens)),
      outputTokens: Math.max(0, Math.round(outputTokens)),
    },
  });
}

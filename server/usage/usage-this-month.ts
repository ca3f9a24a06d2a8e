import type { TTrackerUsage, TUsageThisMonth } from "@/contracts/usage";
import type { TDb } from "../db";
import { getEnv } from "../env";
import { budgetFrom } from "./model-budget";
import { monthOf } from "./month";

type TTally = { refreshes: number; modelCalls: number; tokens: number };

/**
 * Settings → Usage: per tracker this month (UTC) the refreshes, model calls and tokens (its refresh runs plus its
 * setup conversation), the feed's and unbound setups' model use, and the monthly budget — all read from the usage
 * ledger (RefreshRun, RunDailyStat for runs retention pruned, ModelUsage), only the person's own rows.
 */
export async function getUsageThisMonth(db: TDb, input: { userId: string; now?: Date }): Promise<TUsageThisMonth> {
  const now = input.now ?? new Date();
  const { from, until } = monthOf(now);
  const createdAt = { gte: from, lt: until };
  const [runs, pruned, ledger] = await Promise.all([
    db.refreshRun.groupBy({
      by: ["trackerId", "status"],
      where: { tracker: { userId: input.userId }, createdAt },
      _sum: { modelCalls: true, inputTokens: true, outputTokens: true },
      _count: { _all: true },
    }),
    // Runs retention pruned, summed per tracker per UTC day: unchanged checks were refreshes; skipped runs were not.
    db.runDailyStat.groupBy({
      by: ["trackerId"],
      where: { tracker: { userId: input.userId }, day: { gte: from, lt: until } },
      _sum: { unchanged: true, modelCalls: true, inputTokens: true, outputTokens: true },
    }),
    db.modelUsage.groupBy({
      by: ["trackerId", "kind"],
      where: { userId: input.userId, createdAt },
      _sum: { modelCalls: true, inputTokens: true, outputTokens: true },
    }),
  ]);

  const perTracker = new Map<string, TTally>();
  const tally = (id: string) => {
    const found = perTracker.get(id);
    if (found) return found;
    const fresh = { refreshes: 0, modelCalls: 0, tokens: 0 };
    perTracker.set(id, fresh);
    return fresh;
  };
  const feed = { modelCalls: 0, tokens: 0 };
  const unboundSetup = { modelCalls: 0, tokens: 0 };
  for (const row of runs) {
    const t = tally(row.trackerId);
    // Pending and skipped runs did no work (a skipped one found another refresh in flight).
    if (row.status === "completed" || row.status === "failed") t.refreshes += row._count._all;
    t.modelCalls += row._sum.modelCalls ?? 0;
    t.tokens += (row._sum.inputTokens ?? 0) + (row._sum.outputTokens ?? 0);
  }
  for (const row of pruned) {
    const t = tally(row.trackerId);
    t.refreshes += row._sum.unchanged ?? 0;
    t.modelCalls += row._sum.modelCalls ?? 0;
    t.tokens += (row._sum.inputTokens ?? 0) + (row._sum.outputTokens ?? 0);
  }
  for (const row of ledger) {
    const calls = row._sum.modelCalls ?? 0;
    const tokens = (row._sum.inputTokens ?? 0) + (row._sum.outputTokens ?? 0);
    const into = row.trackerId ? tally(row.trackerId) : row.kind === "enhancement" ? feed : unboundSetup;
    into.modelCalls += calls;
    into.tokens += tokens;
  }

  const rows = await db.tracker.findMany({
    where: { userId: input.userId, id: { in: [...perTracker.keys()] } },
    select: { id: true, decision: true, status: true },
  });
  const trackers: TTrackerUsage[] = rows
    .map((r) => ({ trackerId: r.id, decision: r.decision, status: r.status, ...(perTracker.get(r.id) as TTally) }))
    .filter((t) => t.refreshes > 0 || t.modelCalls > 0 || t.tokens > 0)
    .sort((a, b) => b.tokens - a.tokens || b.refreshes - a.refreshes || a.decision.localeCompare(b.decision));

  const total = {
    refreshes: trackers.reduce((n, t) => n + t.refreshes, 0),
    modelCalls: trackers.reduce((n, t) => n + t.modelCalls, feed.modelCalls + unboundSetup.modelCalls),
    tokens: trackers.reduce((n, t) => n + t.tokens, feed.tokens + unboundSetup.tokens),
  };
  return {
    from,
    until,
    budget: budgetFrom(getEnv().AI_MONTHLY_TOKEN_BUDGET ?? null, total.tokens, now),
    trackers,
    feed,
    unboundSetup,
    total,
  };
}

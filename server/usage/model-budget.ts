import type { TDb } from "../db";
import { getEnv } from "../env";
import { AppError } from "../errors";
import { monthOf } from "./month";

export type TModelBudget = {
  /** AI_MONTHLY_TOKEN_BUDGET; null = unlimited. */
  limitTokens: number | null;
  /** Input + output tokens spent this calendar month (UTC): refresh runs plus the usage ledger. */
  spentTokens: number;
  remainingTokens: number | null;
  exhausted: boolean;
  /** When the month turns and the budget starts again. */
  resetsAt: Date;
};

/**
 * Tokens a person spent this month, from the usage ledger: their trackers' refresh runs (RefreshRun keeps each
 * run's tokens, failed runs included; RunDailyStat the sums of runs retention pruned, by UTC day, so months split
 * cleanly) and the model calls made outside a run (ModelUsage: setup, feed).
 */
export async function monthlyTokensSpent(db: TDb, input: { userId: string; now?: Date }): Promise<number> {
  const { from, until } = monthOf(input.now ?? new Date());
  const createdAt = { gte: from, lt: until };
  const sumTokens = { _sum: { inputTokens: true, outputTokens: true } } as const;
  const [runs, pruned, other] = await Promise.all([
    db.refreshRun.aggregate({ where: { tracker: { userId: input.userId }, createdAt }, ...sumTokens }),
    db.runDailyStat.aggregate({
      where: { tracker: { userId: input.userId }, day: { gte: from, lt: until } },
      ...sumTokens,
    }),
    db.modelUsage.aggregate({ where: { userId: input.userId, createdAt }, ...sumTokens }),
  ]);
  return [runs, pruned, other].reduce((n, r) => n + (r._sum.inputTokens ?? 0) + (r._sum.outputTokens ?? 0), 0);
}

/** The person's monthly model-token budget and what is left of it. `limitTokens` defaults to the environment. */
export async function getModelBudget(
  db: TDb,
  input: { userId: string; now?: Date; limitTokens?: number | null },
): Promise<TModelBudget> {
  const now = input.now ?? new Date();
  const limitTokens = input.limitTokens === undefined ? (getEnv().AI_MONTHLY_TOKEN_BUDGET ?? null) : input.limitTokens;
  return budgetFrom(limitTokens, await monthlyTokensSpent(db, { userId: input.userId, now }), now);
}

export function budgetFrom(limitTokens: number | null, spentTokens: number, now: Date): TModelBudget {
  return {
    limitTokens,
    spentTokens,
    remainingTokens: limitTokens === null ? null : Math.max(0, limitTokens - spentTokens),
    exhausted: limitTokens !== null && spentTokens >= limitTokens,
    resetsAt: monthOf(now).until,
  };
}

/** The budget when it is spent, else null. No query at all when there is no budget (the usual case). */
export async function spentModelBudget(
  db: TDb,
  input: { userId: string; now?: Date; limitTokens?: number | null },
): Promise<TModelBudget | null> {
  const limitTokens = input.limitTokens === undefined ? (getEnv().AI_MONTHLY_TOKEN_BUDGET ?? null) : input.limitTokens;
  if (limitTokens === null) return null;
  const budget = await getModelBudget(db, { ...input, limitTokens });
  return budget.exhausted ? budget : null;
}

/**
 * The check before a model call (docs/design.md §9): throws BUDGET_EXCEEDED, with a message for people, when this
 * month's tokens are spent. It runs before each model step; calls already in flight finish, so a month can end a
 * little over its budget, never by more than the steps running at that moment.
 */
export async function assertModelBudget(
  db: TDb,
  input: { userId: string; now?: Date; limitTokens?: number | null },
): Promise<void> {
  const spent = await spentModelBudget(db, input);
  if (!spent) return;
  throw new AppError("BUDGET_EXCEEDED", budgetSpentMessage(spent), {
    details: {
      limitTokens: spent.limitTokens,
      spentTokens: spent.spentTokens,
      resetsAt: spent.resetsAt.toISOString(),
    },
  });
}

const tokens = (n: number) => n.toLocaleString("en-US");

/** "Your monthly AI budget (50,000 tokens) is spent: 50,210 used this month. Model calls resume on 1 March (UTC)." */
export function budgetSpentMessage(budget: Pick<TModelBudget, "limitTokens" | "spentTokens" | "resetsAt">): string {
  const resumes = budget.resetsAt.toLocaleDateString("en-GB", { day: "numeric", month: "long", timeZone: "UTC" });
  return `Your monthly AI budget (${tokens(budget.limitTokens ?? 0)} tokens) is spent: ${tokens(budget.spentTokens)} used this month. Model calls resume on ${resumes} (UTC).`;
}

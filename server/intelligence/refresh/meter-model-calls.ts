import { assertModelBudget } from "../../usage";
import { addUsage, type TModelUsage, ZERO_USAGE } from "../fill";
import type { TRunContext } from "./run-context";

/** Adds what a model step spent to the run's cost, also when the step failed after its calls. */
export async function metered<T extends { modelCalls: number; usage: TModelUsage }>(
  cost: TRunContext["cost"],
  work: Promise<T>,
): Promise<T> {
  const charge = (spent: { modelCalls?: number; usage?: TModelUsage }) => {
    cost.modelCalls += spent.modelCalls ?? 0;
    cost.usage = addUsage(cost.usage, spent.usage ?? ZERO_USAGE);
  };
  try {
    const result = await work;
    charge(result);
    return result;
  } catch (error) {
    charge(error as { modelCalls?: number; usage?: TModelUsage });
    throw error;
  }
}

/**
 * Before each model step (not before code-only ones): the owner's monthly token budget. Spent → this run fails
 * with BUDGET_EXCEEDED before any call, and the state stays as it was (docs/design.md §9).
 */
export function budgetCheck(ctx: TRunContext): () => Promise<void> {
  return () => assertModelBudget(ctx.db, { userId: ctx.tracker.userId, now: ctx.now() });
}

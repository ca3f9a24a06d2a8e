/**
 * Background work in bounded statements (retention of runs and captures, docs/architecture.md): `batch` runs again while it says there
 * is more and `budgetMs` has not passed since the first started (checked between batches, so one always runs). It
 * answers "done" when nothing is left, "more" to go on, "wait" when what is left must wait for the next pass.
 */
export async function batchesWithinBudget(
  budgetMs: number,
  batch: () => Promise<"done" | "more" | "wait">,
): Promise<{ batches: number; done: boolean }> {
  const deadline = performance.now() + budgetMs;
  let batches = 0;
  while (true) {
    const next = await batch();
    batches++;
    if (next === "done") return { batches, done: true };
    if (next === "wait" || performance.now() >= deadline) return { batches, done: false };
  }
}

export const DAY_MS = 86_400_000;

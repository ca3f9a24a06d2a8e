import { trackWork } from "./lifecycle/in-flight-work";
import { logger } from "./logger";

/**
 * Background work that must outlive the request that started it (feed enhancement, calendar refetch).
 * Domain code takes a `defer` as an option and never imports Next: the API layer passes one backed by
 * Next's `after()` (server/api/request-defer.ts), which the platform honours — on a serverless host the
 * function stays alive until the task settles. Outside a request (scripts, tests, the worker) the
 * fallback below runs the task as a detached promise that is tracked, so callers can wait for it.
 */
export type TDeferredTask = () => Promise<unknown>;
export type TDefer = (task: TDeferredTask) => void;

const g = globalThis as { __bellwetherDeferred?: Set<Promise<unknown>> };
g.__bellwetherDeferred ??= new Set();
const pending = g.__bellwetherDeferred;

/** Runs `task` now without awaiting it; its failure is logged, never thrown. Tracked until settled. */
export const detachedDefer: TDefer = (task) => {
  const p: Promise<unknown> = Promise.resolve()
    .then(() => trackWork("deferred task", task))
    .catch((error: unknown) => {
      logger.warn("background task failed", { error });
    })
    .finally(() => pending.delete(p));
  pending.add(p);
};

/** Detached tasks still running. */
export function pendingDeferred(): number {
  return pending.size;
}

/** Waits until every detached task (including ones they start) has settled: tests, script shutdown. */
export async function settleDeferred(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}

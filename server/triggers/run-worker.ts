import type { TDb } from "../db";
import { detachedDefer } from "../defer";
import { enhanceAfterPass, type TBackgroundOptions } from "../feed/background";
import type { TRefreshOptions } from "../intelligence/refresh";
import { logger as rootLogger, type TLogger } from "../logger";
import { runDueRefreshes, type TRunDueSummary } from "./run-due-refreshes";
import { runMaintenance } from "./run-maintenance";

export type TWorkerOptions = {
  concurrency: number;
  /** Per pass of the claim loop. */
  budgetMs: number;
  /** Sleep when nothing was due, ±20% jitter so several workers do not poll in lock-step. */
  pollMs: number;
  /** Random delay before the first pass (0 … this), so a fleet restarting together spreads out. */
  startupJitterMs?: number;
  signal: AbortSignal;
  refreshOptions?: Omit<TRefreshOptions, "trigger" | "idempotencyKey">;
  log?: TLogger;
  onPass?: (summary: TRunDueSummary) => void;
  /** Sees each background enhancement's outcome after a pass (tests). */
  onEnhanced?: TBackgroundOptions["onEnhanced"];
};

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * The long-lived worker: the cron route's claim loop, run continuously until `signal` aborts. On
 * abort it stops claiming, lets refreshes in flight finish, and returns (graceful shutdown).
 */
export async function runWorker(db: TDb, options: TWorkerOptions): Promise<{ passes: number; refreshed: number }> {
  const log = (options.log ?? rootLogger).child({ component: "worker" });
  let passes = 0;
  let refreshed = 0;
  if (options.startupJitterMs) await sleep(Math.random() * options.startupJitterMs, options.signal);
  while (!options.signal.aborted) {
    let summary: TRunDueSummary;
    const changed = new Set<string>();
    try {
      summary = await runDueRefreshes(db, {
        trigger: "worker",
        concurrency: options.concurrency,
        budgetMs: options.budgetMs,
        signal: options.signal,
        log,
        ...(options.refreshOptions ? { refreshOptions: options.refreshOptions } : {}),
        onChange: ({ userId }) => changed.add(userId),
      });
    } catch (error) {
      // A database hiccup must not kill the worker: log, wait, try again.
      log.error("worker pass failed", { error });
      await sleep(options.pollMs, options.signal);
      continue;
    }
    passes++;
    refreshed += summary.completed + summary.failed;
    options.onPass?.(summary);
    if (!options.signal.aborted) await runMaintenance(db); // retention (DESIGN §4) and stale drafts: hourly, never throws
    // Background enhancement for owners of changed trackers (and the 15-minute context sweep): detached, so the
    // claim loop does not wait on model calls; tracked, so a graceful shutdown lets it finish (also after the
    // last pass: the changes it recorded are not left without their briefing).
    detachedDefer(() =>
      enhanceAfterPass(db, {
        changedUserIds: changed,
        ...(options.onEnhanced ? { onEnhanced: options.onEnhanced } : {}),
      }),
    );
    if (summary.claimed > 0) {
      log.info("worker pass", {
        claimed: summary.claimed,
        completed: summary.completed,
        failed: summary.failed,
        durationMs: summary.durationMs,
      });
    }
    // Work was found → look again at once; otherwise sleep.
    if (summary.claimed === 0) await sleep(options.pollMs * (0.8 + Math.random() * 0.4), options.signal);
  }
  return { passes, refreshed };
}

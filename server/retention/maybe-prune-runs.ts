import type { TDb } from "../db";
import { getEnv } from "../env";
import { createThrottledJob } from "../lib/throttled-job";
import type { TLogger } from "../logger";
import { pruneRefreshRuns, type TPruneOptions, type TPruneResult } from "./prune-refresh-runs";

export const PRUNE_INTERVAL_MS = 60 * 60_000;
/** After a prune that stopped at its time budget with runs left (a backlog), the next may start this much sooner. */
const BACKLOG_INTERVAL_DIVISOR = 12;

export type TRunPruner = {
  /**
   * Prunes (pruneRefreshRuns) unless this pruner did so less than an interval ago by `now` (a twelfth of it when the
   * last prune left a backlog), or is doing so right now. Never throws: a failed prune is logged and tried again
   * after the interval. Null when it did not run.
   */
  maybePrune(db: TDb, input?: { now?: Date }): Promise<TPruneResult | null>;
};

/**
 * A throttle (server/lib/throttled-job.ts) around pruneRefreshRuns with its own last-run time, for the scheduler's
 * maintenance hook (cron route, worker): called after every pass, it prunes at most once per interval per process.
 * Several processes may prune in the same hour; that is safe (see pruneRefreshRuns), just redundant.
 */
export function createRunPruner(
  options: Partial<Pick<TPruneOptions, "retentionDays" | "batchSize" | "budgetMs">> & {
    intervalMs?: number;
    log?: TLogger;
  } = {},
): TRunPruner {
  const intervalMs = options.intervalMs ?? PRUNE_INTERVAL_MS;
  const job = createThrottledJob<TDb, TPruneResult>({
    component: "retention",
    failureMessage: "pruning refresh runs failed",
    intervalMs,
    // A backlog (first prune of an old database, a long outage) is worked off in budgeted steps, 12 an hour.
    backlogIntervalMs: intervalMs / BACKLOG_INTERVAL_DIVISOR,
    run: (db, now) =>
      pruneRefreshRuns(db, {
        now,
        retentionDays: options.retentionDays ?? getEnv().RUN_RETENTION_DAYS,
        ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
        ...(options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {}),
      }),
    report: (result, log) => {
      if (result.runs > 0) log.info("pruned refresh runs", { ...result });
    },
    ...(options.log ? { log: options.log } : {}),
  });
  return { maybePrune: (db, input) => job.maybeRun(db, input) };
}

const processPruner = createRunPruner();

/** The process's pruner (at most hourly): the maintenance hook of the cron route and the worker calls this. */
export function maybePruneRuns(db: TDb, input: { now?: Date } = {}): Promise<TPruneResult | null> {
  return processPruner.maybePrune(db, input);
}

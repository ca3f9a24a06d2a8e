import type { TDb } from "../db";
import { getEnv } from "../env";
import { createThrottledJob } from "../lib/throttled-job";
import type { TLogger } from "../logger";
import { type TThinCapturesResult, thinCaptures } from "../timeline";
import { pruneRefreshRuns, type TPruneOptions, type TPruneResult, vacuumIfNoAutovacuum } from "./prune-refresh-runs";

export const PRUNE_INTERVAL_MS = 60 * 60_000;
/** After a prune that stopped at its time budget with runs left (a backlog), the next may start this much sooner. */
const BACKLOG_INTERVAL_DIVISOR = 12;

/** One retention pass: the runs pruned, and the captures thinned (`done` only when both finished). */
export type TRetentionResult = TPruneResult & { captures: TThinCapturesResult };

export type TRunPruner = {
  /**
   * Thins captures (thinCaptures), then prunes runs (pruneRefreshRuns), unless this pruner did so less than an
   * interval ago by `now` (a twelfth of it when the
   * last prune left a backlog), or is doing so right now. Never throws: a failed prune is logged and tried again
   * after the interval. Null when it did not run.
   */
  maybePrune(db: TDb, input?: { now?: Date }): Promise<TRetentionResult | null>;
};

/**
 * A throttle (server/lib/throttled-job.ts) around pruneRefreshRuns with its own last-run time, for the scheduler's
 * maintenance hook (the schedulers, the cron route): called after every pass, it prunes at most once per interval per
 * process, and with `shared` once per interval across every process on the database (docs/scheduling.md). Two prunes
 * at once would still be safe (see pruneRefreshRuns), just redundant.
 */
export function createRunPruner(
  options: Partial<Pick<TPruneOptions, "retentionDays" | "batchSize" | "budgetMs">> & {
    /** CAPTURE_RETENTION_DAYS unless given. */
    captureRetentionDays?: number;
    intervalMs?: number;
    /** Claim each turn in the database (the process's pruner), so one process prunes per interval. */
    shared?: boolean;
    log?: TLogger;
  } = {},
): TRunPruner {
  const intervalMs = options.intervalMs ?? PRUNE_INTERVAL_MS;
  const limits = {
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    ...(options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {}),
  };
  const job = createThrottledJob<TRetentionResult>({
    component: "retention",
    failureMessage: "pruning refresh runs failed",
    intervalMs,
    // A backlog (first prune of an old database, a long outage) is worked off in budgeted steps, 12 an hour.
    backlogIntervalMs: intervalMs / BACKLOG_INTERVAL_DIVISOR,
    ...(options.shared ? { shared: "retention" } : {}),
    run: async (db, now) => {
      // Captures first: a run whose capture goes is then an ordinary unchanged check the same pass may prune.
      const captures = await thinCaptures(db, {
        now,
        retentionDays: options.captureRetentionDays ?? getEnv().CAPTURE_RETENTION_DAYS,
        ...limits,
      });
      const runs = await pruneRefreshRuns(db, {
        now,
        retentionDays: options.retentionDays ?? getEnv().RUN_RETENTION_DAYS,
        ...limits,
      });
      // The prune vacuums its own tables where nothing else does; the deleted captures' space too.
      const vacuumed = captures.captures > 0 && (await vacuumIfNoAutovacuum(db, ["Capture", "RefreshRun"]));
      return { ...runs, vacuumed: runs.vacuumed || vacuumed, done: runs.done && captures.done, captures };
    },
    report: (result, log) => {
      const { captures, ...runs } = result;
      if (runs.runs > 0) log.info("pruned refresh runs", { ...runs });
      if (captures.captures > 0) log.info("thinned captures", { ...captures });
    },
    ...(options.log ? { log: options.log } : {}),
  });
  return { maybePrune: (db, input) => job.maybeRun(db, input) };
}

const processPruner = createRunPruner({ shared: true });

/** The retention pass (hourly across all processes): the maintenance hook of the schedulers and the cron route. */
export function maybePruneRuns(db: TDb, input: { now?: Date } = {}): Promise<TRetentionResult | null> {
  return processPruner.maybePrune(db, input);
}

import { logger as rootLogger, type TLogger } from "../logger";

export type TThrottledJob<TDbArg, TResult> = {
  /**
   * Runs the job unless it ran less than an interval ago by `now` (the backlog interval when its last run reported
   * `done: false`), or is running right now. Never throws: a failure is logged and tried again after the interval.
   * Null when it did not run (or failed).
   */
  maybeRun(db: TDbArg, input?: { now?: Date }): Promise<TResult | null>;
};

/**
 * A periodic maintenance job for the scheduler's hooks (cron route, worker): they call it after every pass and it
 * runs at most once per interval per process, one at a time. Several processes may run it in the same interval, so
 * a job must be safe to run twice (each one is one conditional statement per batch).
 */
export function createThrottledJob<TDbArg, TResult extends object>(options: {
  /** For the logs: "component" of every line, and the words of the failure message. */
  component: string;
  failureMessage: string;
  intervalMs: number;
  /** After a run that reported `done: false` (it stopped at its budget with work left), the next may start this soon. */
  backlogIntervalMs?: number;
  run: (db: TDbArg, now: Date) => Promise<TResult>;
  /** Logged at info when the run did something. */
  report?: (result: TResult, log: TLogger) => void;
  log?: TLogger;
}): TThrottledJob<TDbArg, TResult> {
  let nextAt: number | null = null;
  let running = false;
  return {
    async maybeRun(db, input = {}) {
      const now = input.now ?? new Date();
      if (running || (nextAt !== null && now.getTime() < nextAt)) return null;
      // Claimed before the first await, so two passes finishing together start one run.
      running = true;
      nextAt = now.getTime() + options.intervalMs;
      const log = (options.log ?? rootLogger).child({ component: options.component });
      try {
        const result = await options.run(db, now);
        options.report?.(result, log);
        if ((result as { done?: unknown }).done === false && options.backlogIntervalMs !== undefined) {
          nextAt = now.getTime() + options.backlogIntervalMs;
        }
        return result;
      } catch (error) {
        log.error(options.failureMessage, { error });
        return null;
      } finally {
        running = false;
      }
    },
  };
}

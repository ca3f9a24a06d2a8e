import { randomUUID } from "node:crypto";
import type { TDb } from "../db";
import { logger as rootLogger, type TLogger } from "../logger";

export type TThrottledJob<TResult> = {
  /**
   * Runs the job unless it ran less than an interval ago by `now` (the backlog interval when its last run reported
   * `done: false`), or is running right now. Never throws: a failure is logged and tried again after the interval.
   * Null when it did not run (or failed).
   */
  maybeRun(db: TDb, input?: { now?: Date }): Promise<TResult | null>;
};

/** How long a claimed turn of a shared job keeps others out while it runs (a crashed runner's turn comes back). */
const SHARED_LEASE_MS = 10 * 60_000;

/**
 * Claims the shared job's turn in one statement (docs/scheduling.md "Hourly jobs"): the row is created on first use,
 * and taken only when its time has come and no one holds it. The claim already moves `nextRunAt` an interval on,
 * so every other process finds it not due.
 */
async function claimSharedTurn(
  db: TDb,
  input: { name: string; token: string; now: Date; intervalMs: number },
): Promise<boolean> {
  const { name, token, now } = input;
  const next = new Date(now.getTime() + input.intervalMs);
  const leaseUntil = new Date(now.getTime() + SHARED_LEASE_MS);
  const rows = await db.$queryRaw<{ name: string }[]>`
    INSERT INTO "SchedulerJob" (name, "nextRunAt", "leaseToken", "leaseExpiresAt", "lastStartedAt", runs)
    VALUES (${name}, ${next}, ${token}, ${leaseUntil}, ${now}, 1)
    ON CONFLICT (name) DO UPDATE SET "nextRunAt" = EXCLUDED."nextRunAt", "leaseToken" = EXCLUDED."leaseToken",
      "leaseExpiresAt" = EXCLUDED."leaseExpiresAt", "lastStartedAt" = EXCLUDED."lastStartedAt",
      runs = "SchedulerJob".runs + 1
    WHERE "SchedulerJob"."nextRunAt" <= ${now}
      AND ("SchedulerJob"."leaseExpiresAt" IS NULL OR "SchedulerJob"."leaseExpiresAt" <= ${now})
    RETURNING name`;
  return rows.length > 0;
}

/** When the shared job may next be tried: its next turn, or when the holder's lease runs out if that is later. */
async function sharedNextAt(db: TDb, name: string): Promise<number | null> {
  const row = await db.schedulerJob.findUnique({
    where: { name },
    select: { nextRunAt: true, leaseExpiresAt: true },
  });
  if (!row) return null;
  return Math.max(row.nextRunAt.getTime(), row.leaseExpiresAt?.getTime() ?? 0);
}

async function finishSharedTurn(db: TDb, input: { name: string; token: string; nextAt: Date }): Promise<void> {
  await db.schedulerJob.updateMany({
    where: { name: input.name, leaseToken: input.token },
    data: { leaseToken: null, leaseExpiresAt: null, lastFinishedAt: new Date(), nextRunAt: input.nextAt },
  });
}

/**
 * A periodic maintenance job for the scheduler's hooks (the schedulers' passes, the cron route): they call it after
 * every pass and it runs at most once per interval per process, one at a time. With `shared`, the turn is also
 * claimed in the database (the `SchedulerJob` row of that name, written only here), so the job runs once per
 * interval across every app instance and worker; otherwise several processes may run it in the same interval, so
 * the job must be safe to run twice (each one is one conditional statement per batch).
 */
export function createThrottledJob<TResult extends object>(options: {
  /** For the logs: "component" of every line, and the words of the failure message. */
  component: string;
  failureMessage: string;
  intervalMs: number;
  /** After a run that reported `done: false` (it stopped at its budget with work left), the next may start this soon. */
  backlogIntervalMs?: number;
  /** The job's name in `SchedulerJob`: one run per interval across all processes sharing the database. */
  shared?: string;
  run: (db: TDb, now: Date) => Promise<TResult>;
  /** Logged at info when the run did something. */
  report?: (result: TResult, log: TLogger) => void;
  log?: TLogger;
}): TThrottledJob<TResult> {
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
      const token = randomUUID();
      let claimed = false;
      try {
        if (options.shared) {
          claimed = await claimSharedTurn(db, {
            name: options.shared,
            token,
            now,
            intervalMs: options.intervalMs,
          });
          if (!claimed) {
            // Another process has this turn: look again when the next one is due.
            nextAt = (await sharedNextAt(db, options.shared)) ?? nextAt;
            return null;
          }
        }
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
        if (claimed && options.shared) {
          await finishSharedTurn(db, { name: options.shared, token, nextAt: new Date(nextAt) }).catch((error) =>
            log.warn("recording the end of a shared job failed", { error }),
          );
        }
      }
    },
  };
}

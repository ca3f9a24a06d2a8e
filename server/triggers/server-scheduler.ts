import { getDb } from "../db";
import { getEnv, schedulerMode, schedulerPollMs } from "../env";
import { shutdownSignal, trackWork } from "../lifecycle/in-flight-work";
import { logger } from "../logger";
import { newSchedulerStatus, runScheduler, type TSchedulerLiveStatus } from "./run-scheduler";

type TServerScheduler = { mode: { enabled: boolean; reason: string }; status: TSchedulerLiveStatus | null };

// One per process, also across Next's module instances (instrumentation and each route bundle load this file).
const g = globalThis as { __bellwetherScheduler?: TServerScheduler };

/**
 * Starts the server's own scheduler (docs/scheduling.md) unless SCHEDULER turns it off (or `auto` finds a serverless
 * host): the same loop as `npm run worker`, inside the server process, so `npm start` keeps watch with no cron to
 * set up, on either database. It stops with the graceful shutdown: the shutdown signal stops it claiming, and the
 * shutdown waits for its refreshes in flight (it is tracked work). Called once by instrumentation.ts after the
 * database opened; a second call does nothing.
 */
export async function startServerScheduler(): Promise<TServerScheduler> {
  if (g.__bellwetherScheduler) return g.__bellwetherScheduler;
  const env = getEnv();
  const mode = schedulerMode(env);
  const state: TServerScheduler = { mode, status: null };
  g.__bellwetherScheduler = state;
  if (!mode.enabled) {
    logger.info("scheduler off", { reason: mode.reason });
    return state;
  }
  const db = await getDb();
  const pollMs = schedulerPollMs(env);
  const status = newSchedulerStatus({ kind: "app", pollMs, budgetMs: env.REFRESH_BUDGET_MS });
  state.status = status;
  void trackWork("scheduler", () =>
    runScheduler(db, {
      kind: "app",
      concurrency: env.REFRESH_CONCURRENCY,
      budgetMs: env.REFRESH_BUDGET_MS,
      pollMs,
      // Instances restarted together spread their first passes over a few seconds.
      startupJitterMs: Math.min(pollMs, 3_000),
      signal: shutdownSignal(),
      status,
    }),
  ).catch((error: unknown) => logger.error("the scheduler stopped", { error }));
  return state;
}

/** This process's scheduler: whether it runs and why, and its live status (null when off or not started). */
export function serverScheduler(): TServerScheduler {
  return g.__bellwetherScheduler ?? { mode: schedulerMode(getEnv()), status: null };
}

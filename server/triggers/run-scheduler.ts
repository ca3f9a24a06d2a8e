import { randomUUID } from "node:crypto";
import type { TDb } from "../db";
import { detachedDefer } from "../defer";
import { enhanceAfterPass, type TBackgroundOptions } from "../feed/background";
import type { TRefreshOptions } from "../intelligence/refresh";
import { logger as rootLogger, type TLogger } from "../logger";
import { kickNotifications } from "../notifications";
import { runDueRefreshes, type TRunDueSummary, wakesNotifications } from "./run-due-refreshes";
import { runMaintenance } from "./run-maintenance";
import { createHeartbeat } from "./scheduler-heartbeat";

/** What a running scheduler knows of itself (the server's is read by /system and /api/health). */
export type TSchedulerLiveStatus = {
  id: string;
  kind: "app" | "worker";
  startedAt: Date;
  pollMs: number;
  budgetMs: number;
  lastPass: { startedAt: Date; durationMs: number; claimed: number; completed: number; failed: number } | null;
  /** When the loop last came round (after a pass, or after a pass that failed): the health check's "is it stuck". */
  lastLoopAt: Date;
  nextPassAt: Date | null;
};

export type TSchedulerOptions = {
  /** app: the server's own scheduler (runs are "scheduler"); worker: `npm run worker` (runs are "worker"). */
  kind: "app" | "worker";
  concurrency: number;
  /** Per pass of the claim loop. */
  budgetMs: number;
  /** Sleep when nothing was due, ±20% jitter so several schedulers do not poll in lock-step. */
  pollMs: number;
  /** Random delay before the first pass (0 … this), so a fleet restarting together spreads out. */
  startupJitterMs?: number;
  signal: AbortSignal;
  refreshOptions?: Omit<TRefreshOptions, "trigger" | "idempotencyKey">;
  log?: TLogger;
  /** The clock of the claims (tests move it so a tracker is due again; refreshOptions.now moves the runs'). */
  now?: () => Date;
  /** Kept up to date as the loop goes (the server's scheduler hands in the one /system reads). */
  status?: TSchedulerLiveStatus;
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

export function newSchedulerStatus(input: Pick<TSchedulerLiveStatus, "kind" | "pollMs" | "budgetMs">) {
  const now = new Date();
  return { id: randomUUID(), ...input, startedAt: now, lastPass: null, lastLoopAt: now, nextPassAt: now };
}

/**
 * A scheduler (docs/scheduling.md): the claim loop of the cron route, run continuously until `signal` aborts — due
 * trackers with backoff and jitter within a budget per pass, then the maintenance (hourly jobs claimed once across
 * all processes, the notification sender until its backlog is gone), then the feed's background enhancement. A
 * refresh that records a change or fails wakes the sender at once. Found work → the next pass at once; otherwise a
 * sleep of `pollMs`. On abort it stops claiming, lets refreshes in flight finish, and returns (graceful shutdown).
 * Its heartbeat row tells /system, the health check and the tracker page that something keeps watch.
 */
export async function runScheduler(
  db: TDb,
  options: TSchedulerOptions,
): Promise<{ passes: number; refreshed: number }> {
  const log = (options.log ?? rootLogger).child({ component: options.kind === "app" ? "scheduler" : "worker" });
  const status = options.status ?? newSchedulerStatus(options);
  const heartbeat = createHeartbeat(db, { id: status.id, kind: options.kind, pollMs: options.pollMs });
  const beat = async (write: () => Promise<void>) => {
    try {
      await write();
    } catch (error) {
      log.warn("scheduler heartbeat failed", { error });
    }
  };
  let passes = 0;
  let refreshed = 0;
  if (options.startupJitterMs) await sleep(Math.random() * options.startupJitterMs, options.signal);
  await beat(() => heartbeat.start());
  while (!options.signal.aborted) {
    let summary: TRunDueSummary;
    const startedAt = new Date();
    const changed = new Set<string>();
    try {
      summary = await runDueRefreshes(db, {
        trigger: options.kind === "app" ? "scheduler" : "worker",
        concurrency: options.concurrency,
        budgetMs: options.budgetMs,
        signal: options.signal,
        log,
        ...(options.refreshOptions ? { refreshOptions: options.refreshOptions } : {}),
        ...(options.now ? { now: options.now } : {}),
        onChange: ({ userId }) => changed.add(userId),
        // Its notice goes out now, not after the pass (docs/scheduling.md "Notifications").
        onResult: ({ result }) => {
          if (wakesNotifications(result)) void kickNotifications(db);
        },
      });
    } catch (error) {
      // A database hiccup must not kill the scheduler: log, wait, try again.
      log.error("scheduler pass failed", { error });
      status.lastLoopAt = new Date();
      await sleep(options.pollMs, options.signal);
      continue;
    }
    passes++;
    refreshed += summary.completed + summary.failed;
    options.onPass?.(summary);
    if (!options.signal.aborted) await runMaintenance(db); // hourly jobs and the notification sender (docs/scheduling.md); never throws
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
      log.info("scheduler pass", {
        claimed: summary.claimed,
        completed: summary.completed,
        failed: summary.failed,
        durationMs: summary.durationMs,
      });
    }
    // Work was found → look again at once; otherwise sleep.
    const sleepMs = summary.claimed === 0 ? options.pollMs * (0.8 + Math.random() * 0.4) : 0;
    const now = new Date();
    status.lastPass = {
      startedAt,
      durationMs: summary.durationMs,
      claimed: summary.claimed,
      completed: summary.completed,
      failed: summary.failed,
    };
    status.lastLoopAt = now;
    status.nextPassAt = options.signal.aborted ? null : new Date(now.getTime() + sleepMs);
    await beat(() =>
      heartbeat.pass(
        { startedAt, durationMs: summary.durationMs, claimed: summary.claimed, nextPassAt: status.nextPassAt },
        now,
      ),
    );
    if (sleepMs > 0) await sleep(sleepMs, options.signal);
  }
  status.nextPassAt = null;
  await beat(() => heartbeat.stop());
  return { passes, refreshed };
}

import type { TDb } from "../db";
import { getScheduleBacklog, type TScheduleBacklog } from "../intelligence/tracker-store";
import { getDeliveryBacklog, type TDeliveryBacklog } from "../notifications";
import type { TSchedulerLiveStatus } from "./run-scheduler";
import { lateAfterMs, listSchedulers, type TSchedulerSeen } from "./scheduler-heartbeat";
import { serverScheduler } from "./server-scheduler";

export type TThisServerScheduler = {
  /** Configured to run here (SCHEDULER and the host). */
  enabled: boolean;
  /** Actually running in this process (started with the server). */
  running: boolean;
  /** Its heartbeat row's id (null when not running). */
  id: string | null;
  /** Why it runs or not, in words ("on by default (SCHEDULER=auto)", "turned off (SCHEDULER=off)"). */
  reason: string;
  pollMs: number | null;
  lastPass: TSchedulerLiveStatus["lastPass"];
  nextPassAt: Date | null;
  /** On, but its loop has not come round for longer than a pass can take: the health check fails. */
  stalled: boolean;
};

/** When a running scheduler whose loop has not come round counts as stuck: a whole pass plus a late heartbeat. */
export function isStalled(
  status: Pick<TSchedulerLiveStatus, "lastLoopAt" | "budgetMs" | "pollMs">,
  now: Date,
): boolean {
  return now.getTime() - status.lastLoopAt.getTime() > status.budgetMs + lateAfterMs(status.pollMs);
}

/** This process's own scheduler (no database read). */
export function thisServerScheduler(now = new Date()): TThisServerScheduler {
  const { mode, status } = serverScheduler();
  return {
    enabled: mode.enabled,
    running: status !== null,
    id: status?.id ?? null,
    reason: mode.reason,
    pollMs: status?.pollMs ?? null,
    lastPass: status?.lastPass ?? null,
    nextPassAt: status?.nextPassAt ?? null,
    stalled: status !== null && isStalled(status, now),
  };
}

export type TSchedulerReport = {
  thisServer: TThisServerScheduler;
  /** Every scheduler seen in the last week (app servers, workers, the cron route), live ones first. */
  schedulers: TSchedulerSeen[];
  /** Some scheduler, here or elsewhere, is keeping watch. */
  keepingWatch: boolean;
  trackers: TScheduleBacklog;
  deliveries: TDeliveryBacklog;
};

/** The System page's "Scheduler" section (docs/scheduling.md): who keeps watch, how far behind, what waits. */
export async function getSchedulerReport(db: TDb, input: { now?: Date } = {}): Promise<TSchedulerReport> {
  const now = input.now ?? new Date();
  const [schedulers, trackers, deliveries] = await Promise.all([
    listSchedulers(db, { now }),
    getScheduleBacklog(db, { now }),
    getDeliveryBacklog(db, { now }),
  ]);
  return {
    thisServer: thisServerScheduler(now),
    schedulers,
    keepingWatch: schedulers.some((s) => s.alive),
    trackers,
    deliveries,
  };
}

import type { TDb } from "../db";
import { createThrottledJob } from "../lib/throttled-job";
import { drainNotifications, type TNotificationsPass } from "../notifications";
import type { TRetentionResult } from "../retention";
import { maybePruneRuns } from "../retention";
import { discardStaleDrafts, type TDiscardStaleDraftsResult } from "../trackers";

export const STALE_DRAFTS_INTERVAL_MS = 60 * 60_000;

/**
 * Discards drafts untouched for 14 days (server/trackers discardStaleDrafts), at most hourly per process; with
 * `shared`, hourly across every process on the database (docs/scheduling.md "Hourly jobs").
 */
export function createStaleDraftsJob(options: { intervalMs?: number; shared?: boolean } = {}) {
  return createThrottledJob<TDiscardStaleDraftsResult>({
    component: "drafts",
    failureMessage: "discarding stale drafts failed",
    intervalMs: options.intervalMs ?? STALE_DRAFTS_INTERVAL_MS,
    ...(options.shared ? { shared: "stale-drafts" } : {}),
    run: (db, now) => discardStaleDrafts(db, { now }),
    report: (result, log) => {
      if (result.trackers > 0 || result.sessions > 0) log.info("discarded stale drafts", { ...result });
    },
  });
}

const staleDrafts = createStaleDraftsJob({ shared: true });

export type TMaintenanceResult = {
  runs: TRetentionResult | null;
  drafts: TDiscardStaleDraftsResult | null;
  notifications: TNotificationsPass | null;
};

/**
 * The scheduler's housekeeping, after each pass of every scheduler (the server's, a worker's) and of the cron route:
 * retention (docs/operations.md, "Retention") and stale drafts, each claimed once an hour across all processes (retention sooner while a
 * backlog remains), and the notification sender until its backlog is gone (docs/scheduling.md). Never throws.
 */
export async function runMaintenance(db: TDb, input: { now?: Date } = {}): Promise<TMaintenanceResult> {
  const runs = await maybePruneRuns(db, input);
  const drafts = await staleDrafts.maybeRun(db, input);
  const notifications = await drainNotifications(db, input);
  return { runs, drafts, notifications };
}

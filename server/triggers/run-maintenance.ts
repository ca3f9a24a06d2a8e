import type { TDb } from "../db";
import { createThrottledJob } from "../lib/throttled-job";
import { runNotifications, type TNotificationsPass } from "../notifications";
import type { TRetentionResult } from "../retention";
import { maybePruneRuns } from "../retention";
import { discardStaleDrafts, type TDiscardStaleDraftsResult } from "../trackers";

export const STALE_DRAFTS_INTERVAL_MS = 60 * 60_000;

/** Discards drafts untouched for 14 days (server/trackers discardStaleDrafts), at most hourly per process. */
export function createStaleDraftsJob(options: { intervalMs?: number } = {}) {
  return createThrottledJob<TDb, TDiscardStaleDraftsResult>({
    component: "drafts",
    failureMessage: "discarding stale drafts failed",
    intervalMs: options.intervalMs ?? STALE_DRAFTS_INTERVAL_MS,
    run: (db, now) => discardStaleDrafts(db, { now }),
    report: (result, log) => {
      if (result.trackers > 0 || result.sessions > 0) log.info("discarded stale drafts", { ...result });
    },
  });
}

const staleDrafts = createStaleDraftsJob();

export type TMaintenanceResult = {
  runs: TRetentionResult | null;
  drafts: TDiscardStaleDraftsResult | null;
  notifications: TNotificationsPass | null;
};

/**
 * The scheduler's housekeeping, called by the cron route and the worker after each pass: retention (DESIGN §4) and
 * stale drafts, each with its own throttle (hourly; retention sooner while a backlog remains), and notifications on
 * every pass (outbox → deliveries → sends; issue #15). Never throws.
 */
export async function runMaintenance(db: TDb, input: { now?: Date } = {}): Promise<TMaintenanceResult> {
  const runs = await maybePruneRuns(db, input);
  const drafts = await staleDrafts.maybeRun(db, input);
  const notifications = await runNotifications(db, input);
  return { runs, drafts, notifications };
}

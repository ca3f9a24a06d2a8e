import type { TDb } from "../../db";
import { INACTIVE_AFTER_MS } from "../../enhancement/enhancement-manager";
import { createThrottledJob } from "../../lib/throttled-job";
import { listActiveUsersWithContext } from "../../settings/active-users";
import { queueBackgroundEnhancement, type TBackgroundOptions } from "./background-queue";

/**
 * How often the scheduler re-checks the feeds of active people with a place or a calendar: Open-Meteo's current
 * conditions move every 15 minutes, and a calendar event becoming "soon" (calendar-source) is a change of the
 * same order. The check is one feed build per person; the hash gate calls the model only when the input moved.
 */
export const CONTEXT_SWEEP_INTERVAL_MS = 15 * 60_000;
/** People re-checked per sweep, most recently active first: bounds the weather fetches one pass adds. */
export const CONTEXT_SWEEP_LIMIT = 50;

export function createContextSweep(options: { intervalMs?: number } = {}) {
  return createThrottledJob<{ userIds: string[] }>({
    component: "feed-context-sweep",
    failureMessage: "listing active people for the context sweep failed",
    intervalMs: options.intervalMs ?? CONTEXT_SWEEP_INTERVAL_MS,
    run: async (db, now) => ({
      userIds: await listActiveUsersWithContext(db, {
        since: new Date(now.getTime() - INACTIVE_AFTER_MS),
        limit: CONTEXT_SWEEP_LIMIT,
      }),
    }),
  });
}

const contextSweep = createContextSweep();

/**
 * After a scheduler pass (cron route, worker): enhance in the background for the owners of trackers that recorded
 * a change in it, and — at most every 15 minutes per process — for active people whose forecast or calendar may
 * have moved. Inactive people are skipped inside (one read each). Callers run it through `defer`, so a serverless
 * cron invocation lives until it settles. Never throws.
 */
export async function enhanceAfterPass(
  db: TDb,
  input: { changedUserIds: Iterable<string> } & TBackgroundOptions,
): Promise<void> {
  const now = input.now ?? (() => new Date());
  const swept = await contextSweep.maybeRun(db, { now: now() });
  const { changedUserIds, ...opts } = input;
  await queueBackgroundEnhancement(db, [...changedUserIds, ...(swept?.userIds ?? [])], opts);
}

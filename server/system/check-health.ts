import { describeDatabase, getDb } from "@/server/db";
import { getScheduleBacklog } from "@/server/intelligence/tracker-store";
import { logger } from "@/server/logger";
import { thisServerScheduler } from "@/server/triggers";

export type THealth = {
  ok: boolean;
  database: "embedded" | "postgres";
  ms: number;
  /**
   * This server's scheduler (docs/scheduling.md) and how late the most overdue tracker is, across all schedulers.
   * `stalled` (its loop has not come round for longer than a pass can take) makes the check fail, so a platform's
   * health check restarts a stuck scheduler; a lag alone does not (after an outage every tracker is late for a while).
   */
  scheduler: {
    enabled: boolean;
    running: boolean;
    lastPassAt: string | null;
    stalled: boolean;
    lagSeconds: number | null;
  };
};

/** Opens the database (running embedded migrations the first time) and reads how far behind the schedule is. */
export async function checkHealth(): Promise<THealth> {
  const started = performance.now();
  const database = describeDatabase().kind;
  const now = new Date();
  const own = thisServerScheduler(now);
  const scheduler = {
    enabled: own.enabled,
    running: own.running,
    reason: own.reason,
    lastPassAt: own.lastPass?.startedAt.toISOString() ?? null,
    stalled: own.stalled,
    lagSeconds: null as number | null,
  };
  try {
    const db = await getDb();
    const backlog = await getScheduleBacklog(db, { now });
    scheduler.lagSeconds = Math.round(backlog.lagMs / 1000);
    return { ok: !own.stalled, database, ms: Math.round(performance.now() - started), scheduler };
  } catch (error) {
    // The detail goes to the log only; the response says no more than "not ok".
    logger.error("health check failed", { error });
    return { ok: false, database, ms: Math.round(performance.now() - started), scheduler };
  }
}

import { describeDatabase, getDb } from "@/server/db";
import { findConnectionProblem } from "@/server/db-connection-error";
import { isAppError } from "@/server/errors";
import { getScheduleBacklog } from "@/server/intelligence/tracker-store";
import { logger } from "@/server/logger";
import { thisServerScheduler } from "@/server/triggers";

export type THealth = {
  ok: boolean;
  /**
   * The database and whether this check could read it. `reason` says why not in an operator's words
   * (server/db-connection-error.ts: "connection refused (…)", "the server has no free connections left") — never
   * the URL, a user or a password; the full error goes to the log.
   */
  database: { kind: "embedded" | "postgres"; ok: boolean; reason?: string };
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
  const kind = describeDatabase().kind;
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
  const ms = () => Math.round(performance.now() - started);
  try {
    const db = await getDb();
    const backlog = await getScheduleBacklog(db, { now });
    scheduler.lagSeconds = Math.round(backlog.lagMs / 1000);
    return { ok: !own.stalled, database: { kind, ok: true }, ms: ms(), scheduler };
  } catch (error) {
    logger.error("health check failed", { error });
    return { ok: false, database: { kind, ok: false, reason: reasonFor(error) }, ms: ms(), scheduler };
  }
}

/** Why the database check failed, in words safe for an unauthenticated caller. */
function reasonFor(error: unknown): string {
  // Also when opening it first failed (server/db.ts getDb): the driver's error is then an AppError's cause.
  const problem = findConnectionProblem(error);
  if (problem) return problem.reason;
  if (isAppError(error) && error.code === "NOT_CONFIGURED") return "the database is not ready (see the server log)";
  return "the check query failed (see the server log)";
}

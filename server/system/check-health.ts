import { describeDatabase, getDb } from "@/server/db";
import { logger } from "@/server/logger";

export type THealth = { ok: boolean; database: "embedded" | "postgres"; ms: number };

/** Opens the database (running embedded migrations the first time) and runs a trivial query. */
export async function checkHealth(): Promise<THealth> {
  const started = performance.now();
  const database = describeDatabase().kind;
  try {
    const db = await getDb();
    await db.$queryRaw`SELECT 1`;
    return { ok: true, database, ms: Math.round(performance.now() - started) };
  } catch (error) {
    // The detail goes to the log only; the response says no more than "not ok".
    logger.error("health check failed", { error });
    return { ok: false, database, ms: Math.round(performance.now() - started) };
  }
}

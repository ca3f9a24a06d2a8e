import type { TPrunedRunDay } from "@/contracts/trackers";
import type { TDb, TTx } from "../../db";
import { getTracker } from "../../intelligence/tracker-store";

export type { TPrunedRunDay };

/**
 * The runs log's counted part: the user's tracker's runs counted per UTC day instead of kept (scheduled unchanged
 * checks, and runs retention pruned; server/usage/run-day-counts.ts), newest first. A day may also have runs of its
 * own in the log (every other run is kept).
 */
export async function listPrunedRunDays(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; limit?: number },
): Promise<TPrunedRunDay[]> {
  const tracker = await getTracker(db, input);
  const rows = await db.runDailyStat.findMany({
    where: { trackerId: tracker.id },
    orderBy: { day: "desc" },
    take: Math.min(Math.max(input.limit ?? 20, 1), 100),
  });
  return rows.map((r) => ({
    day: r.day.toISOString().slice(0, 10),
    unchanged: r.unchanged,
    skipped: r.skipped,
    modelCalls: r.modelCalls,
    tokens: r.inputTokens + r.outputTokens,
  }));
}

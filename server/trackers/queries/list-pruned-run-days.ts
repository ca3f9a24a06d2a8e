import type { TPrunedRunDay } from "@/contracts/trackers";
import type { TDb, TTx } from "../../db";
import { getTracker } from "../../intelligence/tracker-store";

export type { TPrunedRunDay };

/**
 * The runs log's older part: the user's tracker's runs that retention pruned (server/retention), summed per UTC day,
 * newest first. A day may also still have runs of its own in the log (those retention keeps).
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

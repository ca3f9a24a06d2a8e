import type { TDb, TTx } from "../../db";
import { getTracker } from "../../intelligence/tracker-store";
import { type TRefreshRunView, toRefreshRunView } from "../views/refresh-run-view";

/** The runs log of the user's tracker, newest first. */
export async function listRefreshRuns(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; limit?: number },
): Promise<TRefreshRunView[]> {
  const tracker = await getTracker(db, input);
  const runs = await db.refreshRun.findMany({
    where: { trackerId: tracker.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(Math.max(input.limit ?? 20, 1), 100),
  });
  return runs.map(toRefreshRunView);
}

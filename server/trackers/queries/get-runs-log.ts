import type { TDb, TTx } from "../../db";
import type { TRefreshRunView } from "../views/refresh-run-view";
import { listPrunedRunDays, type TPrunedRunDay } from "./list-pruned-run-days";
import { listRefreshRuns } from "./list-refresh-runs";

/** The whole runs log of the user's tracker (the public API's runs response): the latest runs and the pruned days. */
export async function getRunsLog(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; limit?: number },
): Promise<{ runs: TRefreshRunView[]; prunedDays: TPrunedRunDay[] }> {
  const [runs, prunedDays] = await Promise.all([listRefreshRuns(db, input), listPrunedRunDays(db, input)]);
  return { runs, prunedDays };
}

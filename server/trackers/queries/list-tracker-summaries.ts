import type { TDb, TTx } from "../../db";
import type { Tracker } from "../../generated/prisma/client";
import { type TTrackerSummary, toTrackerSummary } from "../views/tracker-summary-view";

/** The user's trackers for the list page, newest first, with when each last changed materially. */
export async function listTrackerSummaries(
  db: TDb | TTx,
  input: { userId: string; status?: Tracker["status"] | "failing" },
): Promise<TTrackerSummary[]> {
  const trackers = await db.tracker.findMany({
    where: { userId: input.userId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const last = trackers.length
    ? await db.entityChange.groupBy({
        by: ["trackerId"],
        where: { trackerId: { in: trackers.map((t) => t.id) }, materiality: "material" },
        _max: { capturedAt: true },
      })
    : [];
  const byTracker = new Map(last.map((row) => [row.trackerId, row._max.capturedAt ?? null]));
  const all = trackers.map((t) => toTrackerSummary(t, byTracker.get(t.id) ?? null));
  if (!input.status) return all;
  if (input.status === "failing") return all.filter((t) => t.failing);
  return all.filter((t) => t.status === input.status);
}

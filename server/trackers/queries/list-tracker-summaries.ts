import type { TDb, TTx } from "../../db";
import type { Prisma, Tracker } from "../../generated/prisma/client";
import { FAILING_WHERE, NEEDS_ATTENTION_WHERE } from "../../intelligence/tracker-store";
import { type TTrackerSummary, toTrackerSummary } from "../views/tracker-summary-view";

/** The user's trackers for the list page, newest first, with when each last changed materially. */
export async function listTrackerSummaries(
  db: TDb | TTx,
  input: { userId: string; status?: Tracker["status"] | "failing" | "needs_attention" },
): Promise<TTrackerSummary[]> {
  const byStatus: Prisma.TrackerWhereInput =
    input.status === undefined
      ? {}
      : input.status === "failing"
        ? FAILING_WHERE
        : input.status === "needs_attention"
          ? NEEDS_ATTENTION_WHERE
          : { status: input.status };
  const trackers = await db.tracker.findMany({
    where: { userId: input.userId, ...byStatus },
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
  return trackers.map((t) => toTrackerSummary(t, byTracker.get(t.id) ?? null));
}

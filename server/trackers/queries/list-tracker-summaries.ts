import { TRACKERS_API_DEFAULT_LIMIT, TRACKERS_API_MAX_LIMIT } from "@/contracts/trackers";
import type { TDb, TTx } from "../../db";
import type { Prisma, Tracker } from "../../generated/prisma/client";
import { FAILING_WHERE, NEEDS_ATTENTION_WHERE } from "../../intelligence/tracker-store";
import { type TTrackerSummary, toTrackerSummary } from "../views/tracker-summary-view";
import { afterTrackerCursorWhere, pageOf, TRACKER_LIST_ORDER } from "./tracker-list-where";

type TSummaryStatus = Tracker["status"] | "failing" | "needs_attention";

/**
 * The user's trackers as the public API lists them (GET /api/v1/trackers, tRPC tracker.list), newest first, a page
 * at a time (docs/api.md): at most `limit` (default 100, at most 500), with when each last changed materially.
 */
export async function pageTrackerSummaries(
  db: TDb | TTx,
  input: { userId: string; status?: TSummaryStatus; limit?: number; cursor?: string | null },
): Promise<{ trackers: TTrackerSummary[]; nextCursor: string | null }> {
  const limit = Math.min(input.limit ?? TRACKERS_API_DEFAULT_LIMIT, TRACKERS_API_MAX_LIMIT);
  const byStatus: Prisma.TrackerWhereInput =
    input.status === undefined
      ? {}
      : input.status === "failing"
        ? FAILING_WHERE
        : input.status === "needs_attention"
          ? NEEDS_ATTENTION_WHERE
          : { status: input.status };
  const rows = await db.tracker.findMany({
    where: {
      AND: [{ userId: input.userId }, byStatus, afterTrackerCursorWhere(input.cursor)],
    },
    orderBy: TRACKER_LIST_ORDER,
    take: limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, limit);
  const last = page.length
    ? await db.entityChange.groupBy({
        by: ["trackerId"],
        where: { trackerId: { in: page.map((t) => t.id) }, materiality: "material" },
        _max: { capturedAt: true },
      })
    : [];
  const byTracker = new Map(last.map((row) => [row.trackerId, row._max.capturedAt ?? null]));
  return { trackers: page.map((t) => toTrackerSummary(t, byTracker.get(t.id) ?? null)), nextCursor };
}

/** The first page of pageTrackerSummaries (at most `limit`, default 100), for callers that read one page. */
export async function listTrackerSummaries(
  db: TDb | TTx,
  input: { userId: string; status?: TSummaryStatus; limit?: number; cursor?: string | null },
): Promise<TTrackerSummary[]> {
  return (await pageTrackerSummaries(db, input)).trackers;
}

import { Prisma, type Tracker } from "../../generated/prisma/client";

/**
 * The ONE definition of the derived tracker statuses "failing" and "due", each as a Prisma `where`
 * fragment (for queries) and a predicate on a row (for rows already loaded), so the trackers list, the
 * tracker page, the feed and the scheduler cannot drift apart. It lives in the store, below the
 * refresh loop and the claim; server/trackers re-exports it for the layers above.
 */

/** After this many consecutive failed refreshes an active tracker shows as failing. */
export const FAILING_AFTER = 3;

type TStatusFields = Pick<Tracker, "status" | "consecutiveFailures" | "nextRunAt">;

/**
 * "failing": an ACTIVE tracker whose last FAILING_AFTER refreshes or more all failed (docs/design.md §3 failure
 * path). A paused, archived or draft tracker is never failing: nothing refreshes it, so neither the list
 * nor the feed raises an alarm the person cannot act on by waiting. Its failure count is kept, so a
 * resumed tracker that is still broken shows as failing again at once.
 */
export const FAILING_WHERE = {
  status: "active",
  consecutiveFailures: { gte: FAILING_AFTER },
} as const satisfies Prisma.TrackerWhereInput;

export function isFailing(tracker: Pick<TStatusFields, "status" | "consecutiveFailures">): boolean {
  return tracker.status === "active" && tracker.consecutiveFailures >= FAILING_AFTER;
}

/**
 * "needs attention" (docs/field-health.md): an ACTIVE tracker whose fetches succeed but one of whose fields has read
 * nothing for FIELD_MISSING_AFTER runs in a row — its reason in words is set by the refresh's final write and cleared
 * by the first run in which every such field reads again. Distinct from failing: the page came, a field did not.
 */
export const NEEDS_ATTENTION_WHERE = {
  status: "active",
  attentionReason: { not: null },
} as const satisfies Prisma.TrackerWhereInput;

export function needsAttention(tracker: Pick<Tracker, "status" | "attentionReason">): boolean {
  return tracker.status === "active" && tracker.attentionReason !== null;
}

/** "due": an active tracker whose next run time has come (a tracker without one is never due). */
export function dueWhere(now: Date): Prisma.TrackerWhereInput {
  return { status: "active", nextRunAt: { lte: now } };
}

export function isDue(tracker: Pick<TStatusFields, "status" | "nextRunAt">, now: Date): boolean {
  return tracker.status === "active" && tracker.nextRunAt !== null && tracker.nextRunAt.getTime() <= now.getTime();
}

/** dueWhere as raw SQL for the claim's `FOR UPDATE SKIP LOCKED` select (Prisma cannot express that). */
export function dueSql(now: Date): Prisma.Sql {
  return Prisma.sql`"status" = 'active' AND "nextRunAt" <= ${now}`;
}

/** A due tracker is overdue once it is this many of its intervals late: no scheduler keeps watch, or it is stuck. */
export const OVERDUE_AFTER_INTERVALS = 2;

/**
 * "overdue" (docs/scheduling.md): an active tracker whose next run time is more than OVERDUE_AFTER_INTERVALS of its
 * schedule in the past. A scheduler pass takes seconds, so this means nothing refreshes it.
 */
export function isOverdue(tracker: Pick<Tracker, "status" | "nextRunAt" | "scheduleMinutes">, now: Date): boolean {
  if (tracker.status !== "active" || tracker.nextRunAt === null) return false;
  return now.getTime() - tracker.nextRunAt.getTime() > OVERDUE_AFTER_INTERVALS * tracker.scheduleMinutes * 60_000;
}

/** overdue as raw SQL (counts over the `Tracker(status, nextRunAt)` index's rows). */
export function overdueSql(now: Date): Prisma.Sql {
  return Prisma.sql`"status" = 'active' AND "nextRunAt" < ${now}::timestamp - ("scheduleMinutes" * ${OVERDUE_AFTER_INTERVALS} * interval '1 minute')`;
}

import type { TDb } from "../../db";
import { Prisma } from "../../generated/prisma/client";
import { dueSql, overdueSql } from "./tracker-status-rules";

export type TScheduleBacklog = {
  active: number;
  /** Due now (the one "due" rule). */
  due: number;
  /** More than two of their intervals late (the one "overdue" rule). */
  overdue: number;
  /** The earliest next run of an active tracker (in the past when some are due). */
  nextDueAt: Date | null;
  /** How late the most overdue tracker is (0 when none is due): what /api/health reports as the scheduler's lag. */
  lagMs: number;
};

/** How far behind the schedule is, across all people (docs/scheduling.md): one statement over the trackers. */
export async function getScheduleBacklog(db: TDb, input: { now: Date }): Promise<TScheduleBacklog> {
  const { now } = input;
  const [row] = await db.$queryRaw<
    { active: number; due: number; overdue: number; nextDueAt: Date | null }[]
  >(Prisma.sql`
    SELECT count(*)::int AS active,
      (count(*) FILTER (WHERE ${dueSql(now)}))::int AS due,
      (count(*) FILTER (WHERE ${overdueSql(now)}))::int AS overdue,
      min("nextRunAt") AS "nextDueAt"
    FROM "Tracker" WHERE status = 'active'`);
  const nextDueAt = row?.nextDueAt ?? null;
  return {
    active: row?.active ?? 0,
    due: row?.due ?? 0,
    overdue: row?.overdue ?? 0,
    nextDueAt,
    lagMs: nextDueAt ? Math.max(0, now.getTime() - nextDueAt.getTime()) : 0,
  };
}

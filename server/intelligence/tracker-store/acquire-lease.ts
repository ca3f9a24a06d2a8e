import type { TDb } from "../../db";

/**
 * One refresh in flight per tracker, across processes: the lease is taken by a single conditional
 * UPDATE (free or expired), so exactly one of any number of concurrent callers wins.
 * An expired lease means its holder crashed or hung; taking it over is safe because the holder's
 * final write is fenced on still holding the lease (recordRefreshSuccess/Failure).
 */
export async function acquireLease(
  db: TDb,
  trackerId: string,
  leaseToken: string,
  now: Date,
  leaseMs: number,
): Promise<{ acquired: boolean; tookOver: boolean }> {
  // One statement: the conditional UPDATE, returning the previous holder (a non-null previous token
  // means an expired lease was taken over, i.e. its run was interrupted).
  const rows = await db.$queryRaw<{ previous: string | null }[]>`
    UPDATE "Tracker" AS t
    SET "leaseToken" = ${leaseToken}, "leaseExpiresAt" = ${new Date(now.getTime() + leaseMs)}
    FROM (SELECT "id", "leaseToken" FROM "Tracker" WHERE "id" = ${trackerId} FOR UPDATE) AS prev
    WHERE t."id" = prev."id"
      AND (t."leaseToken" IS NULL OR t."leaseExpiresAt" IS NULL OR t."leaseExpiresAt" < ${now})
    RETURNING prev."leaseToken" AS previous`;
  const row = rows[0];
  return { acquired: row !== undefined, tookOver: row?.previous != null };
}

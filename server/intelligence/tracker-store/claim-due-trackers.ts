import type { TDb, TTx } from "../../db";
import { Prisma } from "../../generated/prisma/client";
import { dueSql } from "./tracker-status-rules";

export type TClaimOptions = {
  /** At most this many trackers per claim. */
  limit: number;
  now: Date;
  /**
   * How long a claimed tracker stays out of other claimers' reach. Its nextRunAt moves this far ahead
   * in the same statement, so a claimer that dies mid-batch only delays those trackers by the lease.
   */
  leaseMs?: number;
};

export const DEFAULT_CLAIM_LEASE_MS = 10 * 60_000;

/**
 * Claims due trackers (active, nextRunAt ≤ now), oldest due first, in ONE statement: the inner SELECT
 * walks the (status, nextRunAt) index and locks rows with FOR UPDATE SKIP LOCKED, so concurrent
 * claimers (cron calls, workers, other instances) never get the same tracker; the UPDATE pushes each
 * claimed tracker's nextRunAt forward by the claim lease, so once committed it is no longer due.
 * refreshTracker then sets the real next run (computeNextRunAt, in its final transaction).
 */
export async function claimDueTrackers(db: TDb | TTx, options: TClaimOptions): Promise<string[]> {
  const leaseMs = options.leaseMs ?? DEFAULT_CLAIM_LEASE_MS;
  if (options.limit < 1) return [];
  const until = new Date(options.now.getTime() + leaseMs);
  const rows = await db.$queryRaw<{ id: string }[]>`
    UPDATE "Tracker" SET "nextRunAt" = ${until}
    WHERE "id" IN (${claimSelect(options.now, options.limit)})
    RETURNING "id"`;
  return rows.map((r) => r.id);
}

/** The claim's inner query: due trackers (the one "due" rule), oldest due first, locked and skipped if taken. */
function claimSelect(now: Date, limit: number): Prisma.Sql {
  return Prisma.sql`SELECT "id" FROM "Tracker" WHERE ${dueSql(now)} ORDER BY "nextRunAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
}

/** The claim's inner query as text with $1 (now) and $2 (limit), for EXPLAIN in tests and the benchmark. */
export const CLAIM_SELECT_SQL = claimSelect(new Date(0), 1).text;

/** Gives claimed-but-not-started trackers back (due now) when a budget runs out before their turn. */
export async function releaseClaims(db: TDb | TTx, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.tracker.updateMany({ where: { id: { in: ids }, status: "active" }, data: { nextRunAt: now } });
}

import { randomUUID } from "node:crypto";
import type { TDb } from "../../db";
import { asyncCommitSql } from "../../db-cte";
import { queryHot } from "../../db-hot-statements";
import { Prisma } from "../../generated/prisma/client";
import { bundleColumnsSql, parseRow, type TLoadedTracker } from "./lease-and-load";
import { dueSql } from "./tracker-status-rules";

export type TClaimOptions = {
  /** At most this many trackers per claim. */
  limit: number;
  now: Date;
  /** How long the claimed leases last before they must be renewed (the refresh renews them while it runs). */
  leaseMs: number;
};

/**
 * Claims due trackers (active, nextRunAt ≤ now, lease free or expired), oldest due first, and returns
 * each one's refresh bundle (tracker, locked definition, entities with hashes) — ONE statement for the
 * batch, so a claimed refresh starts without a read of its own (issue "Refresh at the floor").
 * The inner SELECT walks the (status, nextRunAt) index and locks rows with FOR UPDATE SKIP LOCKED, so
 * concurrent claimers (cron calls, workers, other instances) never get the same tracker; the UPDATE takes
 * each one's lease (token "runId:random", generated here). A claimer that dies holds them only until the
 * short lease expires; the refresh's final write sets the real next run (computeNextRunAt).
 */
export async function claimDueTrackers(db: TDb, options: TClaimOptions): Promise<TLoadedTracker[]> {
  if (options.limit < 1) return [];
  const until = new Date(options.now.getTime() + options.leaseMs);
  const tokens = Array.from({ length: options.limit }, () => `${randomUUID()}:${randomUUID()}`);
  // The CTE returns the locked (latest) version's xmin; the main SELECT's "Tracker" read is the statement's
  // snapshot. Different → a run's final write committed in between: the bundle's hashes may be stale.
  const rows = await queryHot(
    db,
    Prisma.sql`
    WITH picked AS (
      SELECT p."id", p.xmin::text AS "version", row_number() OVER (ORDER BY p."nextRunAt", p."id") AS n
      FROM (${claimSelect(options.now, options.limit)}) AS p
    ), claimed AS (
      UPDATE "Tracker" AS ct
      SET "leaseToken" = (${tokens}::text[])[picked.n], "leaseExpiresAt" = ${until}
      FROM picked WHERE ct."id" = picked."id" AND ${asyncCommitSql()}
      RETURNING ct."id", ct."leaseToken", picked."version"
    )
    SELECT ${bundleColumnsSql()}, c."leaseToken", NULL::text AS "holder", true AS "acquired",
      (c."version" <> t.xmin::text) AS "stale", NULL::text AS "existing"
    FROM claimed c
    JOIN "Tracker" t ON t."id" = c."id"
    LEFT JOIN "TrackerDefinition" d ON d."trackerId" = t."id" AND d."version" = t."lockedVersion"`,
  );
  return rows.map((raw) => {
    const { holder: _h, acquired: _a, existing: _e, leaseToken, ...rest } = parseRow(raw, "(claimed)");
    return { ...rest, leaseToken: leaseToken ?? "", leasedAt: options.now };
  });
}

/** The claim's inner query: due trackers (the one "due" rule) whose lease is free, locked and skipped if taken. */
function claimSelect(now: Date, limit: number): Prisma.Sql {
  return Prisma.sql`SELECT "id", "nextRunAt", xmin FROM "Tracker"
    WHERE ${dueSql(now)} AND ("leaseToken" IS NULL OR "leaseExpiresAt" IS NULL OR "leaseExpiresAt" < ${now})
    ORDER BY "nextRunAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
}

/** The claim's inner query as text with $1, $2 (now) and $3 (limit), for EXPLAIN in tests and the benchmark. */
export const CLAIM_SELECT_SQL = claimSelect(new Date(0), 1).text;

/** Gives leases back that were claimed but never started (a budget ran out first): due again now. */
export async function releaseClaims(db: TDb, claims: { id: string; leaseToken: string }[], now: Date): Promise<void> {
  if (claims.length === 0) return;
  await db.$executeRaw`
    UPDATE "Tracker" AS t
    SET "leaseToken" = NULL, "leaseExpiresAt" = NULL,
        "nextRunAt" = CASE WHEN t."status" = 'active' THEN ${now} ELSE t."nextRunAt" END
    FROM unnest(${claims.map((c) => c.id)}::text[], ${claims.map((c) => c.leaseToken)}::text[]) AS x(id, token)
    WHERE t."id" = x.id AND t."leaseToken" = x.token`;
}

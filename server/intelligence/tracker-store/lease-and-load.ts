import { z } from "zod";
import type { TDb } from "../../db";
import { asyncCommitSql } from "../../db-cte";
import { queryHot } from "../../db-hot-statements";
import { AppError } from "../../errors";
import { Prisma } from "../../generated/prisma/client";
import { MEMBER_KEY_PREFIX } from "../../timeline";
import { parseFieldHealth } from "./field-health-state";
import { parsePageValidators } from "./page-validators";

/**
 * The read of the refresh hot path (issue "Refresh at the floor"): ONE statement takes the tracker's lease
 * and returns everything a run needs — the tracker, its locked definition by (trackerId, lockedVersion),
 * its entities with their current hashes, and the finished run of the same idempotency key if there is
 * one. The cron claim (claim-due-trackers.ts) returns the same bundle for a whole batch.
 *
 * Leases are short and renewed while a run is alive (renewLease), so the lease of a process that died is
 * free again within seconds; the final write is fenced on the token (docs/design.md §3, §7).
 */

/** JSON values come back as text (`::text` in SQL) and are parsed here, the same with every adapter. */
const jsonText = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: "custom", message: "stored JSON does not parse" });
    return z.NEVER;
  }
});

/**
 * An entity with its current state's hash and accepted record (`fields`; both null before its first run): the
 * pre-check reads the hash, the changed path diffs against the record — no read of its own (docs/design.md §3).
 */
const ZEntitySchema = z.object({
  id: z.string(),
  entityKey: z.string(),
  contentHash: z.string().nullable(),
  fields: z.record(z.string(), z.unknown()).nullable(),
});
export type TLoadedEntity = z.infer<typeof ZEntitySchema>;

const ZExistingRunSchema = z.object({
  id: z.string(),
  status: z.enum(["pending", "running", "completed", "failed", "skipped"]),
  outcome: z.string().nullable(),
  summary: z.string().nullable(),
  modelCalls: z.number(),
  error: z.object({ code: z.string(), message: z.string(), retryable: z.boolean() }).nullable(),
});
export type TExistingRun = z.infer<typeof ZExistingRunSchema>;

const ZLoadedRowSchema = z.object({
  id: z.string(),
  userId: z.string(),
  decision: z.string(),
  capability: z.string(),
  capabilityInput: jsonText,
  status: z.enum(["draft", "active", "paused", "archived"]),
  lockedVersion: z.number().int().nullable(),
  scheduleMinutes: z.number().int(),
  consecutiveFailures: z.number().int(),
  /** Field health as the last run left it (docs/field-health.md); unparseable → null, as if none. */
  fieldHealth: jsonText.nullable().transform(parseFieldHealth),
  /** web.scrape's validators for a conditional request (page-validators.ts); unparseable → null, as if none. */
  pageValidators: jsonText.nullable().transform(parsePageValidators),
  /** The lease token this statement found (the holder when not acquired; the previous one when acquired). */
  holder: z.string().nullable(),
  acquired: z.boolean(),
  /**
   * True when the tracker row changed between the claim's snapshot and the moment it locked the row (a run's
   * final write committed meanwhile): entities and hashes may be stale, so the refresh re-reads them.
   */
  stale: z.boolean(),
  leaseToken: z.string().nullable(),
  definition: jsonText.nullable(),
  entities: jsonText.pipe(z.array(ZEntitySchema)),
  existing: jsonText.pipe(ZExistingRunSchema).nullable(),
});

export type TLoadedTracker = Omit<
  z.infer<typeof ZLoadedRowSchema>,
  "holder" | "acquired" | "stale" | "leaseToken" | "existing"
> & {
  /** When the lease was taken (the claim's or the refresh's own clock), for renewals. */
  leasedAt: Date;
  leaseToken: string;
  stale: boolean;
};

export type TLeaseAndLoadResult =
  | { kind: "leased"; tracker: TLoadedTracker; tookOver: boolean }
  /** The same idempotency key already finished: its answer, nothing was leased. */
  | { kind: "replay"; run: TExistingRun }
  /** Someone else holds the lease; `holder` is their token (its run id is the part before ":"). */
  | { kind: "busy"; holder: string | null; userId: string; status: TLoadedTracker["status"] };

/** Entities returned with the bundle: a tracker usually has one; more than this falls back to a lookup. */
export const LOADED_ENTITY_LIMIT = 16;

/**
 * The bundle's columns, over a tracker row aliased `t` and its definition `d` (shared with the claim). A set's members
 * (`item:…`, docs/sets.md) are not the tracker's own entities: a set refresh reads them only when the set changed.
 */
export function bundleColumnsSql(): Prisma.Sql {
  return Prisma.sql`t."id", t."userId", t."decision", t."capability", t."capabilityInput"::text AS "capabilityInput",
    t."status"::text AS "status", t."lockedVersion", t."scheduleMinutes", t."consecutiveFailures",
    t."fieldHealth"::text AS "fieldHealth", t."pageValidators"::text AS "pageValidators",
    d."definition"::text AS "definition",
    COALESCE((
      SELECT json_agg(e)::text FROM (
        SELECT te."id", te."entityKey", s."contentHash", s."fields"
        FROM "TrackedEntity" te LEFT JOIN "EntityCurrentState" s ON s."entityId" = te."id"
        WHERE te."trackerId" = t."id" AND te."entityKey" NOT LIKE ${`${MEMBER_KEY_PREFIX}%`}
        ORDER BY s."lastCheckedAt" DESC NULLS LAST, te."id"
        LIMIT ${LOADED_ENTITY_LIMIT}
      ) e
    ), '[]') AS "entities"`;
}

/**
 * Takes the lease of one tracker and loads its bundle, in one statement. `idempotencyKey` → a finished run
 * with that key is returned instead and no lease is taken. NOT_FOUND / PRECONDITION_FAILED (archived, never
 * locked) as before.
 */
export async function leaseAndLoad(
  db: TDb,
  input: { trackerId: string; leaseToken: string; now: Date; leaseMs: number; idempotencyKey?: string | null },
): Promise<TLeaseAndLoadResult> {
  const { trackerId, leaseToken, now } = input;
  const key = input.idempotencyKey ?? null;
  const until = new Date(now.getTime() + input.leaseMs);
  // The bundle is read from this statement's snapshot. The lease is taken only if the row it locks still has
  // the snapshot's lease token and lastRunAt (every run's final write sets lastRunAt): if a run's final write
  // committed in between, the snapshot's hashes could be stale, and this call answers "in flight" instead.
  // (Uncorrelated subqueries are evaluated once, against the snapshot, also when the UPDATE re-checks a row
  // that a concurrent transaction changed.)
  const keyed = key !== null;
  const rows = await queryHot(
    db,
    Prisma.sql`
    WITH lease AS (
      UPDATE "Tracker" AS lt
      SET "leaseToken" = ${leaseToken}, "leaseExpiresAt" = ${until}
      WHERE lt."id" = ${trackerId}
        AND lt."status" <> 'archived' AND lt."lockedVersion" IS NOT NULL
        AND (lt."leaseToken" IS NULL OR lt."leaseExpiresAt" IS NULL OR lt."leaseExpiresAt" < ${now})
        AND lt."leaseToken" IS NOT DISTINCT FROM (SELECT "leaseToken" FROM "Tracker" WHERE "id" = ${trackerId})
        AND lt."lastRunAt" IS NOT DISTINCT FROM (SELECT "lastRunAt" FROM "Tracker" WHERE "id" = ${trackerId})
        AND ${asyncCommitSql()}
        ${
          keyed
            ? Prisma.sql`AND NOT EXISTS (
          SELECT 1 FROM "RefreshRun" r
          WHERE r."trackerId" = lt."id" AND r."idempotencyKey" = ${key}
            AND r."status" IN ('completed', 'failed', 'skipped'))`
            : Prisma.empty
        }
      RETURNING lt."id"
    )
    SELECT ${bundleColumnsSql()},
      t."leaseToken" AS "holder",
      EXISTS (SELECT 1 FROM lease) AS "acquired",
      false AS "stale",
      ${leaseToken}::text AS "leaseToken",
      ${
        keyed
          ? Prisma.sql`(SELECT row_to_json(r)::text FROM (
        SELECT "id", "status"::text AS "status", "outcome", "summary", "modelCalls", "error"
        FROM "RefreshRun" WHERE "trackerId" = t."id" AND "idempotencyKey" = ${key}
      ) r)`
          : Prisma.sql`NULL::text`
      } AS "existing"
    FROM "Tracker" t
    LEFT JOIN "TrackerDefinition" d ON d."trackerId" = t."id" AND d."version" = t."lockedVersion"
    WHERE t."id" = ${trackerId}`,
  );
  const raw = rows[0];
  if (raw === undefined) throw new AppError("NOT_FOUND", "That tracker does not exist.");
  const row = parseRow(raw, trackerId);
  if (row.status === "archived") throw new AppError("PRECONDITION_FAILED", "This tracker is archived.");
  if (row.lockedVersion === null) {
    throw new AppError("PRECONDITION_FAILED", "Lock a definition for this tracker before refreshing it.");
  }
  if (row.acquired) {
    const { holder, acquired: _a, existing: _e, ...rest } = row;
    return { kind: "leased", tracker: { ...rest, leaseToken, leasedAt: now }, tookOver: holder !== null };
  }
  if (row.existing && ["completed", "failed", "skipped"].includes(row.existing.status)) {
    return { kind: "replay", run: row.existing };
  }
  return { kind: "busy", holder: row.holder, userId: row.userId, status: row.status };
}

export function parseRow(raw: unknown, trackerId: string): z.infer<typeof ZLoadedRowSchema> {
  const parsed = ZLoadedRowSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError("INTERNAL", `Tracker ${trackerId} could not be loaded for a refresh.`, { cause: parsed.error });
  }
  return parsed.data;
}

/**
 * Extends a live run's lease (its heartbeat). False → the lease is no longer ours (it expired and was taken
 * over); the run goes on but its final write will be fenced off.
 */
export async function renewLease(
  db: TDb,
  input: { trackerId: string; leaseToken: string; now: Date; leaseMs: number },
): Promise<boolean> {
  const until = new Date(input.now.getTime() + input.leaseMs);
  const count = await db.$executeRaw`
    UPDATE "Tracker" SET "leaseExpiresAt" = ${until}
    WHERE "id" = ${input.trackerId} AND "leaseToken" = ${input.leaseToken} AND ${asyncCommitSql()}`;
  return count === 1;
}

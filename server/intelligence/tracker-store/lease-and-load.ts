import { z } from "zod";
import type { TDb } from "../../db";
import { asyncCommitSql } from "../../db-cte";
import { queryHot } from "../../db-hot-statements";
import { AppError } from "../../errors";
import { Prisma } from "../../generated/prisma/client";
import { MEMBER_KEY_PREFIX } from "../../timeline";
import {
  RATE_LIMIT_COUNTED,
  rateLimitCountSql,
  rateLimitRefusal,
  rateLimitWindow,
  type TRateLimitCount,
} from "../../usage";
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
  /** The locked definition's JSON text, parsed by parseLockedDefinition only the first time a process sees it. */
  definition: z.string().nullable(),
  entities: jsonText.pipe(z.array(ZEntitySchema)),
  existing: jsonText.pipe(ZExistingRunSchema).nullable(),
  /** A caller's refresh refused by their rate limit (no lease taken); false without a caller; the claim has none. */
  refused: z.boolean().optional(),
});

export type TLoadedTracker = Omit<
  z.infer<typeof ZLoadedRowSchema>,
  "holder" | "acquired" | "stale" | "leaseToken" | "existing" | "refused"
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
 * A person's own refresh ("Refresh now", the API): the lease is taken on their tracker only — another person's is
 * NOT_FOUND, exactly like a missing one, and nothing is leased or counted — and, unless the call is a replay (a run of
 * its idempotency key exists, whatever its status), it is counted against their rate limit in the same statement
 * (server/usage rateLimitCountSql; null: no limit). A refused call takes no lease and throws TOO_MANY_REQUESTS.
 */
export type TLeaseCaller = { userId: string; rateLimit: Omit<TRateLimitCount, "userId" | "now"> | null };

/**
 * Takes the lease of one tracker and loads its bundle, in one statement. `idempotencyKey` → a finished run
 * with that key is returned instead and no lease is taken. NOT_FOUND / PRECONDITION_FAILED (archived, never
 * locked) as before. `caller` (a person's own refresh, TLeaseCaller): the owner check and the rate limit's count
 * ride in the same statement, so a manual or API refresh costs no statement more than a scheduled one.
 */
export async function leaseAndLoad(
  db: TDb,
  input: {
    trackerId: string;
    leaseToken: string;
    now: Date;
    leaseMs: number;
    idempotencyKey?: string | null;
    caller?: TLeaseCaller | null;
  },
): Promise<TLeaseAndLoadResult> {
  const { trackerId, leaseToken, now } = input;
  const key = input.idempotencyKey ?? null;
  const caller = input.caller ?? null;
  const until = new Date(now.getTime() + input.leaseMs);
  const keyed = key !== null;
  const owned = (alias: string) =>
    caller === null ? Prisma.empty : Prisma.sql`AND ${Prisma.raw(`${alias}."userId"`)} = ${caller.userId}`;
  const limit = rateLimitSql(input, caller);
  // The bundle is read from this statement's snapshot. The lease is taken only if the row it locks still has
  // the snapshot's lease token and lastRunAt (every run's final write sets lastRunAt): if a run's final write
  // committed in between, the snapshot's hashes could be stale, and this call answers "in flight" instead.
  // (Uncorrelated subqueries are evaluated once, against the snapshot, also when the UPDATE re-checks a row
  // that a concurrent transaction changed.) A caller's rate-limit count comes first (`refused`): its counter row,
  // then the tracker row, always in that order, so two refreshes never wait on each other's locks in a cycle. The
  // count commits with the lease, without waiting for its WAL flush (asyncCommitSql): a database crash may forget a
  // few counts of the last moments, never add one.
  const rows = await queryHot(
    db,
    Prisma.sql`
    WITH ${limit.ctes}lease AS (
      UPDATE "Tracker" AS lt
      SET "leaseToken" = ${leaseToken}, "leaseExpiresAt" = ${until}
      WHERE lt."id" = ${trackerId} ${owned("lt")}
        AND lt."status" <> 'archived' AND lt."lockedVersion" IS NOT NULL
        AND (lt."leaseToken" IS NULL OR lt."leaseExpiresAt" IS NULL OR lt."leaseExpiresAt" < ${now})
        AND lt."leaseToken" IS NOT DISTINCT FROM (SELECT "leaseToken" FROM "Tracker" WHERE "id" = ${trackerId})
        AND lt."lastRunAt" IS NOT DISTINCT FROM (SELECT "lastRunAt" FROM "Tracker" WHERE "id" = ${trackerId})
        ${limit.active ? Prisma.sql`AND NOT EXISTS (SELECT 1 FROM "refused")` : Prisma.empty}
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
      } AS "existing",
      ${limit.active ? Prisma.sql`EXISTS (SELECT 1 FROM "refused")` : Prisma.sql`false`} AS "refused"
    FROM "Tracker" t
    LEFT JOIN "TrackerDefinition" d ON d."trackerId" = t."id" AND d."version" = t."lockedVersion"
    WHERE t."id" = ${trackerId} ${owned("t")}`,
  );
  const raw = rows[0];
  // A caller's NOT_FOUND is worded as getTracker's: another person's tracker reads exactly like a missing one.
  if (raw === undefined) {
    throw new AppError("NOT_FOUND", caller ? "Tracker not found." : "That tracker does not exist.");
  }
  const row = parseRow(raw, trackerId);
  if (row.status === "archived") throw new AppError("PRECONDITION_FAILED", "This tracker is archived.");
  if (row.lockedVersion === null) {
    throw new AppError("PRECONDITION_FAILED", "Lock a definition for this tracker before refreshing it.");
  }
  if (row.acquired) {
    const { holder, acquired: _a, existing: _e, refused: _r, ...rest } = row;
    return { kind: "leased", tracker: { ...rest, leaseToken, leasedAt: now }, tookOver: holder !== null };
  }
  if (row.refused && caller?.rateLimit) {
    const { retryAfterSeconds } = rateLimitWindow({ windowSeconds: caller.rateLimit.windowSeconds, now });
    throw rateLimitRefusal({ ...caller.rateLimit, retryAfterSeconds });
  }
  if (row.existing && ["completed", "failed", "skipped"].includes(row.existing.status)) {
    return { kind: "replay", run: row.existing };
  }
  return { kind: "busy", holder: row.holder, userId: row.userId, status: row.status };
}

/**
 * A caller's rate-limit count as CTEs ahead of the lease (empty when there is no caller or no limit): `countable` —
 * their tracker, refreshable, and no run of this idempotency key yet (a replay is answered, not counted) — gates
 * the count (server/usage rateLimitCountSql), and `refused` has a row when it was countable but not counted (the
 * window is full): then the lease is not taken.
 */
function rateLimitSql(
  input: { trackerId: string; now: Date; idempotencyKey?: string | null },
  caller: TLeaseCaller | null,
): { ctes: Prisma.Sql; active: boolean } {
  const { trackerId, now } = input;
  const key = input.idempotencyKey ?? null;
  if (!caller?.rateLimit) return { ctes: Prisma.empty, active: false };
  const counted = rateLimitCountSql({
    ...caller.rateLimit,
    userId: caller.userId,
    now,
    when: Prisma.sql`EXISTS (SELECT 1 FROM "countable")`,
  });
  if (counted === null) return { ctes: Prisma.empty, active: false };
  const countable = Prisma.sql`"countable" AS (
      SELECT 1 FROM "Tracker" ct
      WHERE ct."id" = ${trackerId} AND ct."userId" = ${caller.userId}
        AND ct."status" <> 'archived' AND ct."lockedVersion" IS NOT NULL
        ${
          key === null
            ? Prisma.empty
            : Prisma.sql`AND NOT EXISTS (SELECT 1 FROM "RefreshRun" cr WHERE cr."trackerId" = ct."id" AND cr."idempotencyKey" = ${key})`
        }
    )`;
  const ctes = [countable, ...counted.map((cte) => Prisma.sql`${Prisma.raw(`"${cte.name}"`)} AS (${cte.sql})`)];
  ctes.push(Prisma.sql`"refused" AS (
      SELECT 1 FROM "countable" WHERE NOT EXISTS (SELECT 1 FROM ${Prisma.raw(`"${RATE_LIMIT_COUNTED}"`)}))`);
  return { ctes: Prisma.sql`${Prisma.join(ctes, ",\n    ")},\n    `, active: true };
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

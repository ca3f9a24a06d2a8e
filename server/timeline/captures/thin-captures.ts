import type { TDb } from "../../db";
import { Prisma } from "../../generated/prisma/client";
import { batchesWithinBudget, DAY_MS } from "../../lib/batches-within-budget";

export type TThinCapturesOptions = {
  now: Date;
  /** Captures last seen within this many days of `now` are all kept (CAPTURE_RETENTION_DAYS). */
  retentionDays: number;
  /** Captures per statement. */
  batchSize?: number;
  /** No new batch starts after this long; the rest waits for the next pass. */
  budgetMs?: number;
};

export type TThinCapturesResult = {
  /** Captures deleted (their runs keep their rows, with `captureId` null). */
  captures: number;
  /** Their stored (compressed) bytes. */
  bytes: number;
  batches: number;
  /** False when the budget ran out with thinnable captures left. */
  done: boolean;
};

export const DEFAULT_THIN_BATCH = 500;
const DEFAULT_BUDGET_MS = 5_000;

/**
 * Retention of captures (docs/replay.md, "Captures": every capture a kept change references stays, the rest is thinned). A capture is
 * dated by the last run that saw it (`finishedAt`: the refresh's clock; its `createdAt` only when no run links it),
 * since content that returns (A → B → A) is one row seen again. Kept:
 * - every capture a run with a timeline entry (baseline, material, notable) or a re-judged entry (a later version's
 *   reading, server/timeline/rejudged) links — replay starts and compares there;
 * - each entity's latest capture (its current state);
 * - every capture seen within `retentionDays`;
 * - of the older ones no change references, the last of each UTC day per entity.
 * The rest is deleted; the runs that linked them keep their rows (`captureId` → null by the foreign key) and follow
 * the run retention. Idempotent: what a pass keeps, the next keeps too.
 *
 * A refresh may link an existing capture (its content came back) in its final statement; deleting that capture
 * meanwhile would fail the refresh's foreign key. So captures of a tracker a refresh holds (an unexpired lease) wait
 * for the next pass, and the trackers whose captures go are share-locked for the statement, so a refresh that starts
 * now takes its lease after the deletion committed (its final write then re-inserts the content). Same SQL on PGlite
 * and PostgreSQL; each batch is one statement.
 */
export async function thinCaptures(db: TDb, options: TThinCapturesOptions): Promise<TThinCapturesResult> {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_THIN_BATCH));
  const cutoff = new Date(options.now.getTime() - options.retentionDays * DAY_MS);
  const result: TThinCapturesResult = { captures: 0, bytes: 0, batches: 0, done: false };
  const pass = await batchesWithinBudget(options.budgetMs ?? DEFAULT_BUDGET_MS, async () => {
    const [row] = await db.$queryRaw<
      { captures: number; bytes: bigint | number | null; candidates: number; waiting: number }[]
    >(thinCapturesSql({ now: options.now, cutoff, batchSize }));
    const deleted = Number(row?.captures ?? 0);
    const candidates = Number(row?.candidates ?? 0);
    result.captures += deleted;
    result.bytes += Number(row?.bytes ?? 0);
    // Fewer candidates than a batch: nothing more to look at now (a held tracker's captures wait for the next pass).
    if (candidates < batchSize) return "done";
    // A full batch of captures whose trackers are all held: the same ones would come back; try again next pass. (None
    // deleted but not all held: another pass took them meanwhile, so look again.)
    return deleted === 0 && Number(row?.waiting ?? 0) === candidates ? "wait" : "more";
  });
  result.batches = pass.batches;
  result.done = pass.done;
  return result;
}

/**
 * One batch. `seen`: each capture's last sighting and whether a change references it; `ranked`: its place among its
 * entity's captures (newest first) and among the unreferenced ones of its UTC day (`at` is a timestamp without zone,
 * so `::date` is the UTC day whatever the session's zone); `candidates`: the oldest `batchSize` that may go; `held`:
 * their trackers with no refresh in flight, share-locked (MATERIALIZED, so the lock is taken, SKIP LOCKED: a tracker
 * whose lease is being taken right now waits for the next pass).
 */
export function thinCapturesSql(input: { now: Date; cutoff: Date; batchSize: number }): Prisma.Sql {
  return Prisma.sql`
    WITH "seen" AS (
      SELECT c."id", c."trackerId", c."entityId",
        coalesce(
          (SELECT max(coalesce(r."finishedAt", r."createdAt")) FROM "RefreshRun" r WHERE r."captureId" = c."id"),
          c."createdAt") AS "at",
        EXISTS (SELECT 1 FROM "RefreshRun" r WHERE r."captureId" = c."id" AND (
          EXISTS (SELECT 1 FROM "EntityChange" ch WHERE ch."runId" = r."id")
          OR EXISTS (SELECT 1 FROM "RejudgedChange" rc WHERE rc."runId" = r."id"))) AS "referenced"
      FROM "Capture" c
    ), "ranked" AS (
      SELECT s.*,
        row_number() OVER (PARTITION BY s."entityId" ORDER BY s."at" DESC, s."id" DESC) AS "recency",
        row_number() OVER (PARTITION BY s."entityId", s."referenced", s."at"::date ORDER BY s."at" DESC, s."id" DESC)
          AS "inDay"
      FROM "seen" s
    ), "candidates" AS (
      SELECT "id", "trackerId" FROM "ranked"
      WHERE "at" < ${input.cutoff} AND NOT "referenced" AND "recency" > 1 AND "inDay" > 1
      ORDER BY "at", "id"
      LIMIT ${input.batchSize}
    ), "held" AS MATERIALIZED (
      SELECT t."id" FROM "Tracker" t
      WHERE t."id" IN (SELECT "trackerId" FROM "candidates")
        AND (t."leaseToken" IS NULL OR t."leaseExpiresAt" IS NULL OR t."leaseExpiresAt" <= ${input.now})
      FOR SHARE OF t SKIP LOCKED
    ), "deleted" AS (
      DELETE FROM "Capture" c USING "candidates" d
      WHERE c."id" = d."id" AND d."trackerId" IN (SELECT "id" FROM "held")
      RETURNING c."storedBytes"
    )
    SELECT (SELECT count(*) FROM "deleted")::int AS "captures",
      (SELECT coalesce(sum("storedBytes"), 0) FROM "deleted")::bigint AS "bytes",
      (SELECT count(*) FROM "candidates")::int AS "candidates",
      (SELECT count(*) FROM "candidates" WHERE "trackerId" NOT IN (SELECT "id" FROM "held"))::int AS "waiting"`;
}

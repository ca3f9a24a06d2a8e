import type { TDb } from "../db";
import { Prisma } from "../generated/prisma/client";
import { batchesWithinBudget, DAY_MS } from "../lib/batches-within-budget";
import { addToRunDaysSql } from "../usage/run-day-counts";

export type TPruneOptions = {
  now: Date;
  /** Runs created before `now` minus this many days may go. */
  retentionDays: number;
  /** Runs per statement. */
  batchSize?: number;
  /** No new batch starts after this long; the rest waits for the next prune (backlogs are worked off in steps). */
  budgetMs?: number;
};

export type TPruneResult = {
  /** Runs deleted (and counted into RunDailyStat). */
  runs: number;
  batches: number;
  /** False when the budget ran out with prunable runs left. */
  done: boolean;
  /** Whether the freed space was handed back for reuse here (embedded database; PostgreSQL's autovacuum does it). */
  vacuumed: boolean;
};

export const DEFAULT_PRUNE_BATCH = 2000;
const DEFAULT_BUDGET_MS = 5_000;

/**
 * Retention (docs/design.md §4): aggregates and deletes refresh runs past the retention period that nothing needs one by one
 * — completed runs whose page had not changed, and runs skipped because another refresh was in flight — together
 * with their usage-ledger rows (CapabilityCall, by cascade). Their counts, model use and ledger sums are added to
 * RunDailyStat per tracker per UTC day of `createdAt`, which the token budget and "usage this month" add to the runs
 * still stored, so no total changes. Runs with a timeline or re-judged entry, baseline/noise/notable/material and
 * failed runs, unfinished ones, and runs that still link a capture (a page re-read under a new document format is
 * "unchanged" but stores what it saw; server/timeline/captures/thin-captures.ts decides when that goes) are kept.
 *
 * Each batch is ONE statement (see `pruneBatchSql`): deleting, reading the ledger and adding to the day's row
 * commit together or not at all, so a crash can neither count a run twice nor lose one; concurrent prunes (other
 * workers, instances) lock disjoint runs (SKIP LOCKED) and a run deleted by one is never returned to another.
 */
export async function pruneRefreshRuns(db: TDb, options: TPruneOptions): Promise<TPruneResult> {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_PRUNE_BATCH));
  const cutoff = new Date(options.now.getTime() - options.retentionDays * DAY_MS);
  let runs = 0;
  const { batches, done } = await batchesWithinBudget(options.budgetMs ?? DEFAULT_BUDGET_MS, async () => {
    const deleted = await pruneBatch(db, cutoff, batchSize);
    runs += deleted;
    return deleted < batchSize ? "done" : "more";
  });
  const vacuumed = runs > 0 && (await vacuumIfNoAutovacuum(db));
  return { runs, batches, done, vacuumed };
}

/**
 * One batch: DELETE … RETURNING the chosen runs, their CapabilityCall sums read in the same snapshot (every part of
 * a statement sees the rows as they were before it; the cascade removes them afterwards), grouped per tracker and
 * day and added with INSERT … ON CONFLICT DO UPDATE. Day rows are upserted in key order, so two prunes that share
 * days take their row locks in the same order. `createdAt` is a UTC timestamp without zone, so `::date` is its UTC
 * day whatever the session's time zone.
 */
export function pruneBatchSql(cutoff: Date, batchSize: number): Prisma.Sql {
  return Prisma.sql`
    WITH "doomed" AS (
      SELECT r."id" FROM "RefreshRun" r
      WHERE r."createdAt" < ${cutoff}
        AND ((r."status" = 'completed' AND r."outcome" = 'unchanged') OR r."status" = 'skipped')
        AND NOT EXISTS (SELECT 1 FROM "EntityChange" c WHERE c."runId" = r."id")
        -- Nor one a re-judged entry hangs on (docs/replay.md, "Lock with history"; it would go with the run by cascade).
        AND NOT EXISTS (SELECT 1 FROM "RejudgedChange" rc WHERE rc."runId" = r."id")
        -- A run that stored a capture is replay's input (docs/replay.md): it goes only once capture retention dropped it.
        AND r."captureId" IS NULL
      LIMIT ${batchSize}
      FOR UPDATE OF r SKIP LOCKED
    ), "deleted" AS (
      DELETE FROM "RefreshRun" r USING "doomed" WHERE r."id" = "doomed"."id"
      RETURNING r."id", r."trackerId", r."status", r."createdAt", r."modelCalls", r."inputTokens", r."outputTokens"
    ), "ledger" AS (
      SELECT cc."runId", count(*) AS "calls", sum(cc."requests") AS "requests", sum(cc."bytes") AS "bytes"
      FROM "CapabilityCall" cc WHERE cc."runId" IN (SELECT "id" FROM "deleted")
      GROUP BY cc."runId"
    ), "days" AS (
      SELECT d."trackerId", d."createdAt"::date AS "day",
        count(*) FILTER (WHERE d."status" = 'completed')::int AS "unchanged",
        count(*) FILTER (WHERE d."status" = 'skipped')::int AS "skipped",
        sum(d."modelCalls")::int AS "modelCalls",
        sum(d."inputTokens")::int AS "inputTokens",
        sum(d."outputTokens")::int AS "outputTokens",
        coalesce(sum(l."calls"), 0)::int AS "capabilityCalls",
        coalesce(sum(l."requests"), 0)::int AS "requests",
        coalesce(sum(l."bytes"), 0)::bigint AS "bytes"
      FROM "deleted" d LEFT JOIN "ledger" l ON l."runId" = d."id"
      GROUP BY d."trackerId", d."createdAt"::date
    ), "upserted" AS (
      ${addToRunDaysSql(Prisma.sql`SELECT "trackerId", "day", "unchanged", "skipped", "modelCalls", "inputTokens",
        "outputTokens", "capabilityCalls", "requests", "bytes"
      FROM "days" ORDER BY "trackerId", "day"`)}
    )
    SELECT (SELECT count(*) FROM "deleted")::int AS "runs", (SELECT count(*) FROM "upserted")::int AS "days"`;
}

async function pruneBatch(db: TDb, cutoff: Date, batchSize: number): Promise<number> {
  const rows = await db.$queryRaw<{ runs: number; days: number }[]>(pruneBatchSql(cutoff, batchSize));
  return Number(rows[0]?.runs ?? 0);
}

/**
 * Deleted rows leave dead space that only VACUUM makes reusable. PostgreSQL's autovacuum does that; the embedded
 * database runs as a single ("standalone") backend with no autovacuum, so without this every pruned run would still
 * take its disk space and the files would keep growing. Plain VACUUM: no exclusive lock, nothing rewritten.
 */
export async function vacuumIfNoAutovacuum(
  db: TDb,
  tables: readonly TVacuumedTable[] = ["RefreshRun", "CapabilityCall"],
): Promise<boolean> {
  const [probe] = await db.$queryRaw<{ standalone: boolean }[]>`
    SELECT coalesce((SELECT backend_type = 'standalone backend' FROM pg_stat_activity WHERE pid = pg_backend_pid()),
      false) OR current_setting('autovacuum') = 'off' AS "standalone"`;
  if (!probe?.standalone) return false;
  await db.$executeRawUnsafe(`VACUUM ${tables.map((t) => `"${t}"`).join(", ")}`);
  return true;
}

/** The tables retention deletes from (a fixed list: the names go into the statement's text). */
export type TVacuumedTable = "RefreshRun" | "CapabilityCall" | "Capture";

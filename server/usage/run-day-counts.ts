import { Prisma } from "../generated/prisma/client";

/**
 * The RunDailyStat table (this module owns its writes): refresh runs counted per tracker per UTC day instead of
 * stored one by one (docs/refresh.md "Unchanged checks are counted, not stored"). Two writers build on this one
 * upsert: a scheduled check that found the page unchanged (the run's final write, server/intelligence/refresh) and
 * retention, which folds older stored runs into the same days (server/retention). A check its host's gate deferred
(docs/scheduling.md "Politeness per host") counts as skipped. Totals over runs read RefreshRun
 * plus these rows, so neither changes a total.
 */

/** The columns a source of day counts yields, in this order. */
const DAY_COLUMNS = Prisma.raw(`"trackerId", "day", "unchanged", "skipped", "modelCalls", "inputTokens",
  "outputTokens", "capabilityCalls", "requests", "bytes"`);

/**
 * INSERT … ON CONFLICT DO UPDATE that adds `source`'s rows (a SELECT of DAY_COLUMNS, already in key order when it
 * has several, so two writers sharing days take their row locks in the same order) to the days' counts. Returns one
 * row per day touched.
 */
export function addToRunDaysSql(source: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`INSERT INTO "RunDailyStat" AS s (${DAY_COLUMNS})
      ${source}
      ON CONFLICT ("trackerId", "day") DO UPDATE SET
        "unchanged" = s."unchanged" + EXCLUDED."unchanged",
        "skipped" = s."skipped" + EXCLUDED."skipped",
        "modelCalls" = s."modelCalls" + EXCLUDED."modelCalls",
        "inputTokens" = s."inputTokens" + EXCLUDED."inputTokens",
        "outputTokens" = s."outputTokens" + EXCLUDED."outputTokens",
        "capabilityCalls" = s."capabilityCalls" + EXCLUDED."capabilityCalls",
        "requests" = s."requests" + EXCLUDED."requests",
        "bytes" = s."bytes" + EXCLUDED."bytes"
      RETURNING 1`;
}

/** One unchanged check's usage-ledger sums (its capability calls). */
export type TCheckUsage = { capabilityCalls: number; requests: number; bytes: number };

/**
 * One scheduled check counted on its tracker's day (UTC day of `at`) — "unchanged" (it read the page and found no
 * change) or "skipped" (its host's gate deferred it) — only if `from` (the run's fencing CTE, by name) returned its
 * row: a check that lost its lease counts nothing.
 */
export function countCheckSql(input: {
  kind: "unchanged" | "skipped";
  trackerId: string;
  at: Date;
  usage: TCheckUsage;
  from: string;
}) {
  const row = checkCountRow(input);
  return addToRunDaysSql(Prisma.sql`SELECT ${row.trackerId}, ${row.day}::date, ${row.unchanged}::int,
      ${row.skipped}::int, 0, 0, 0, ${row.capabilityCalls}::int, ${row.requests}::int, ${row.bytes}::bigint
      FROM ${Prisma.raw(`"${input.from}"`)}`);
}

/** One counted check as a row of `countCheckRowsSql`'s source (the claim loop's counted checks). */
export type TCheckCountRow = TCheckUsage & { trackerId: string; day: string; unchanged: number; skipped: number };

export function checkCountRow(input: {
  kind: "unchanged" | "skipped";
  trackerId: string;
  at: Date;
  usage: TCheckUsage;
}): TCheckCountRow {
  return {
    trackerId: input.trackerId,
    day: input.at.toISOString().slice(0, 10),
    unchanged: input.kind === "unchanged" ? 1 : 0,
    skipped: input.kind === "skipped" ? 1 : 0,
    ...input.usage,
  };
}

/** The columns of a TCheckCountRow in a `json_to_recordset` source (server/db-cte.ts rowSetSql). */
export const CHECK_COUNT_ROW_COLUMNS = {
  trackerId: "text",
  day: "date",
  unchanged: "int",
  skipped: "int",
  capabilityCalls: "int",
  requests: "int",
  bytes: "bigint",
} as const satisfies Record<keyof TCheckCountRow, string>;

/**
 * countCheckSql for many checks in ONE sub-statement: `source` names a CTE of TCheckCountRow rows, only those of checks
 * whose fence held; summed per tracker and day first (one row each, in key order: addToRunDaysSql).
 */
export function countCheckRowsSql(source: string): Prisma.Sql {
  return addToRunDaysSql(Prisma.sql`SELECT x."trackerId", x."day", sum(x."unchanged")::int, sum(x."skipped")::int, 0, 0, 0,
      sum(x."capabilityCalls")::int, sum(x."requests")::int, sum(x."bytes")::bigint
      FROM ${Prisma.raw(`"${source}"`)} AS x
      GROUP BY x."trackerId", x."day" ORDER BY x."trackerId", x."day"`);
}

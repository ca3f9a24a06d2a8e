import type { TDb, TTx } from "../db";
import { guardedBy, type TCte } from "../db-cte";
import { Prisma } from "../generated/prisma/client";

/**
 * The unchanged / noise path: records that the entity was checked and what the content hashed to,
 * leaving fields, definitionVersion and updatedAt (the last material record, the baseline) alone so
 * slow drift still crosses a threshold. Returns false when the entity has no state yet.
 */
export async function stampChecked(
  tx: TDb | TTx,
  input: { entityId: string; contentHash: string; checkedAt: Date },
): Promise<boolean> {
  return (await tx.$executeRaw(stampCheckedSql({ ...input, guard: null }).sql)) > 0;
}

/**
 * stampChecked as a sub-statement of the refresh's one final write (docs/design.md §2: the timeline owns this
 * table, the refresh composes). `guard` is the name of the statement's fencing CTE: no fence, no stamp (null:
 * unguarded, as stampChecked runs it).
 */
export function stampCheckedSql(input: {
  entityId: string;
  contentHash: string;
  checkedAt: Date;
  guard: string | null;
}): TCte {
  return {
    name: "stamp",
    sql: Prisma.sql`UPDATE "EntityCurrentState"
    SET "contentHash" = ${input.contentHash}, "lastCheckedAt" = ${input.checkedAt}
    WHERE "entityId" = ${input.entityId} AND ${guardedBy(input.guard)}`,
  };
}

/** One run's stamp as a row of `stampCheckedRowsSql`'s source (the claim loop's counted checks). */
export type TStampRow = { entityId: string; contentHash: string; checkedAt: string };

/** The columns of a TStampRow in a `json_to_recordset` source (server/db-cte.ts rowSetSql). */
export const STAMP_ROW_COLUMNS = {
  entityId: "text",
  contentHash: "text",
  checkedAt: "timestamp(3)",
} as const satisfies Record<keyof TStampRow, string>;

/**
 * stampCheckedSql for many runs in ONE sub-statement: `source` names a CTE of TStampRow rows, only those of runs whose
 * fence held (the refresh's composition guards it, docs/refresh.md "Unchanged checks are counted, not stored").
 */
export function stampCheckedRowsSql(source: string): TCte {
  return {
    name: "stamp",
    sql: Prisma.sql`UPDATE "EntityCurrentState" AS s
    SET "contentHash" = x."contentHash", "lastCheckedAt" = x."checkedAt"
    FROM ${Prisma.raw(`"${source}"`)} AS x
    WHERE s."entityId" = x."entityId"`,
  };
}

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

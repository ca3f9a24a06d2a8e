import type { TTx } from "../db";

/**
 * The notifications outbox (docs/design.md §2: the timeline owns it, as it owns the change it reports). `appendChangeSql`
 * (as the refresh's final write carries it, or `appendChange` on its own) writes one row per material or notable
 * change in the same statement as the change, with the tracker's owner, so a
 * change is never recorded without its notice and a rolled-back change leaves none. server/notifications takes them.
 */
export type TOutboxEntry = { changeId: string; userId: string };

/**
 * Takes up to `limit` outbox rows for the caller's transaction: locked with FOR UPDATE SKIP LOCKED (a second
 * worker takes other rows, never the same) and deleted; the caller writes what they become in the same
 * transaction, so a crash leaves the rows in place for the next pass.
 */
export async function takeChangeOutbox(tx: TTx, input: { limit: number }): Promise<TOutboxEntry[]> {
  return tx.$queryRaw<TOutboxEntry[]>`
    DELETE FROM "ChangeOutbox" WHERE "changeId" IN (
      SELECT "changeId" FROM "ChangeOutbox" ORDER BY "createdAt", "changeId" LIMIT ${input.limit} FOR UPDATE SKIP LOCKED
    )
    RETURNING "changeId", "userId"`;
}

import type { TDb, TTx } from "../db";

/**
 * The unchanged / noise path: records that the entity was checked and what the content hashed to,
 * leaving fields, definitionVersion and updatedAt (the last material record, the baseline) alone so
 * slow drift still crosses a threshold. Returns false when the entity has no state yet.
 */
export async function stampChecked(
  tx: TDb | TTx,
  input: { entityId: string; contentHash: string; checkedAt: Date },
): Promise<boolean> {
  const { count } = await tx.entityCurrentState.updateMany({
    where: { entityId: input.entityId },
    data: { contentHash: input.contentHash, lastCheckedAt: input.checkedAt },
  });
  return count > 0;
}

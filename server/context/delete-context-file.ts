import type { TDb } from "../db";
import { AppError } from "../errors";
import { lockedBindings } from "./file-bindings";
import { keepValuesOfRemovedFile } from "./kept-context-values";
import { resolveContextValues } from "./resolve-context-values";

/**
 * Removes one of the person's files and (by cascade, in the same statement) its chunks. Changes that cited it keep
 * their copied quotes, so their reasons stay readable. A value the locked rules read from it is kept, with the time it
 * went, in the same transaction (kept-context-values.ts): those rules go on deciding with it, marked, until the tracker
 * is edited — they never switch off silently. Another person's or tracker's file is NOT_FOUND.
 */
export async function deleteContextFile(
  db: TDb,
  input: { userId: string; trackerId: string; fileId: string; now?: Date },
): Promise<{ deleted: true }> {
  const owner = { userId: input.userId, trackerId: input.trackerId };
  return db.$transaction(async (tx) => {
    const locked = await lockedBindings(tx, owner);
    const bound = locked ? await resolveContextValues(tx, { ...owner, values: locked.values }) : {};
    const { count } = await tx.contextFile.deleteMany({ where: { id: input.fileId, ...owner } });
    if (count === 0) throw new AppError("NOT_FOUND", "That file is not attached to this tracker.");
    await keepValuesOfRemovedFile(tx, {
      ...owner,
      fileId: input.fileId,
      version: locked?.version ?? null,
      bound,
      at: input.now ?? new Date(),
    });
    return { deleted: true as const };
  });
}

import type { TDb } from "../db";
import { AppError } from "../errors";

/**
 * Removes one of the person's files and (by cascade, in the same statement) its chunks. Changes that cited it keep
 * their copied quotes, so their reasons stay readable. Another person's or tracker's file is NOT_FOUND.
 */
export async function deleteContextFile(
  db: TDb,
  input: { userId: string; trackerId: string; fileId: string },
): Promise<{ deleted: true }> {
  const { count } = await db.contextFile.deleteMany({
    where: { id: input.fileId, userId: input.userId, trackerId: input.trackerId },
  });
  if (count === 0) throw new AppError("NOT_FOUND", "That file is not attached to this tracker.");
  return { deleted: true };
}

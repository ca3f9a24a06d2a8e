import type { TDb, TTx } from "../db";
import { AppError } from "../errors";
import type { TrackedEntity } from "../generated/prisma/client";

/**
 * Returns the tracker's entity with this key, creating it on first sight. Race-safe inside or outside
 * a transaction: `createMany({ skipDuplicates })` is one INSERT … ON CONFLICT DO NOTHING (a concurrent
 * inserter waits and then finds the row), followed by a select. A Prisma `upsert` would read then insert
 * and lose the race with P2002, aborting the caller's transaction.
 */
export async function ensureEntity(
  db: TDb | TTx,
  input: { trackerId: string; entityKey: string },
): Promise<TrackedEntity> {
  const entityKey = input.entityKey.trim();
  if (!entityKey) throw new AppError("BAD_REQUEST", "An entity needs a non-empty key.");
  // The hot path: the entity exists after the first refresh, so one read usually suffices.
  const existing = await db.trackedEntity.findUnique({
    where: { trackerId_entityKey: { trackerId: input.trackerId, entityKey } },
  });
  if (existing) return existing;
  try {
    await db.trackedEntity.createMany({ data: [{ trackerId: input.trackerId, entityKey }], skipDuplicates: true });
  } catch (error) {
    if ((error as { code?: string }).code === "P2003") {
      throw new AppError("NOT_FOUND", "Tracker not found.", { cause: error });
    }
    throw error;
  }
  return db.trackedEntity.findUniqueOrThrow({
    where: { trackerId_entityKey: { trackerId: input.trackerId, entityKey } },
  });
}

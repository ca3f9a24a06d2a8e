import type { TDb, TTx } from "../db";
import type { TrackedEntity } from "../generated/prisma/client";

/**
 * A one-time identity migration: when the way entity keys are derived changes (a new document format:
 * session parameters stripped, the tracked URL instead of a redirect target), a single-entity tracker's
 * existing entity takes its new key instead of a second entity starting a fresh baseline. Only an
 * entity whose stored hash `isOlderFormat` moves, and only when no entity has the new key yet; with
 * several entities nothing moves (multi-entity trackers key their own). Race-safe: a concurrent
 * refresh that already created the new key makes the update a no-op. Returns the entity with the key
 * (found or carried), or null — then `ensureEntity` creates it. The usual case costs one read.
 */
export async function findOrCarryEntity(
  db: TDb | TTx,
  input: { trackerId: string; entityKey: string; isOlderFormat: (contentHash: string) => boolean },
): Promise<TrackedEntity | null> {
  const entityKey = input.entityKey.trim();
  const where = { trackerId_entityKey: { trackerId: input.trackerId, entityKey } };
  const existing = await db.trackedEntity.findUnique({ where });
  if (existing) return existing;
  const entities = await db.trackedEntity.findMany({
    where: { trackerId: input.trackerId },
    select: { id: true, state: { select: { contentHash: true } } },
    take: 2,
  });
  const only = entities.length === 1 ? entities[0] : undefined;
  if (!only?.state || !input.isOlderFormat(only.state.contentHash)) return null;
  try {
    await db.trackedEntity.updateMany({ where: { id: only.id }, data: { entityKey } });
  } catch (error) {
    if ((error as { code?: string }).code !== "P2002") throw error; // someone created the new key meanwhile
  }
  return db.trackedEntity.findUnique({ where });
}

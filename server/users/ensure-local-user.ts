import type { TDb, TTx } from "../db";
import type { User } from "../generated/prisma/client";

/** Until accounts arrive, everything belongs to this one user, under a fixed id. */
export const LOCAL_USER_ID = "local";

/**
 * Returns the local user, creating it on first call; an existing user is returned untouched.
 * Race-safe and usable inside a transaction: `createMany({ skipDuplicates })` is one
 * INSERT … ON CONFLICT DO NOTHING on the fixed id. (A Prisma `upsert` with an empty `update` runs
 * as read-then-insert and loses races with P2002; a non-empty one rewrites the row every start.)
 */
export async function ensureLocalUser(db: TDb | TTx): Promise<User> {
  await db.user.createMany({
    data: [{ id: LOCAL_USER_ID, name: "You", isLocal: true }],
    skipDuplicates: true,
  });
  return db.user.findUniqueOrThrow({ where: { id: LOCAL_USER_ID } });
}

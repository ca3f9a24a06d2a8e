import type { TDb, TTx } from "../db";
import type { User } from "../generated/prisma/client";

/**
 * The single user of installs from before accounts, under a fixed id. The app no longer creates it: on an
 * upgraded install its rows are adopted by the owner account when that is created (server/auth/create-accounts.ts).
 * Tests use it to stand for "the previous release's user" and as a ready-made user.
 */
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

import type { TDb, TTx } from "../db";
import { AppError } from "../errors";
import { LOCAL_USER_ID } from "../users/ensure-local-user";

/** Who owns this install and whether anyone may sign up. Before the owner account exists: `ownerId` null. */
export type TAccessState = { ownerId: string | null; openSignUp: boolean };

export async function getAccessState(db: TDb | TTx): Promise<TAccessState> {
  const instance = await db.instance.findUnique({ where: { id: 1 }, select: { ownerId: true, openSignUp: true } });
  return { ownerId: instance?.ownerId ?? null, openSignUp: instance?.openSignUp ?? false };
}

/** Turns open sign-up on or off. Owner only. */
export async function setOpenSignUp(db: TDb, input: { userId: string; open: boolean }): Promise<TAccessState> {
  await assertOwner(db, input.userId);
  const row = await db.instance.update({ where: { id: 1 }, data: { openSignUp: input.open } });
  return { ownerId: row.ownerId, openSignUp: row.openSignUp };
}

/** Owner-only operations call this first; anyone else gets FORBIDDEN. */
export async function assertOwner(db: TDb | TTx, userId: string): Promise<void> {
  const { ownerId } = await getAccessState(db);
  if (!ownerId || ownerId !== userId) throw new AppError("FORBIDDEN", "Only the owner of this Bellwether can do that.");
}

/** Whether this install has data from before accounts (the local user), which the owner account will adopt. */
export async function hasLegacyLocalData(db: TDb | TTx): Promise<boolean> {
  return (await db.user.count({ where: { id: LOCAL_USER_ID, isLocal: true } })) > 0;
}

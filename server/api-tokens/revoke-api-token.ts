import type { TDb, TTx } from "../db";
import { AppError } from "../errors";

/** Revokes one of the user's tokens; it stops working at once. */
export async function revokeApiToken(db: TDb | TTx, input: { userId: string; tokenId: string }): Promise<void> {
  const { count } = await db.apiToken.updateMany({
    where: { id: input.tokenId, userId: input.userId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count === 0) {
    const exists = await db.apiToken.findFirst({ where: { id: input.tokenId, userId: input.userId } });
    if (!exists) throw new AppError("NOT_FOUND", "Token not found.");
  }
}

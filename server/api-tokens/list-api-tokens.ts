import type { TDb, TTx } from "../db";
import type { TApiTokenView } from "./create-api-token";

/** The user's tokens (never their hashes), newest first, revoked ones included. */
export async function listApiTokens(db: TDb | TTx, input: { userId: string }): Promise<TApiTokenView[]> {
  return db.apiToken.findMany({
    where: { userId: input.userId },
    orderBy: { createdAt: "desc" },
    select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  });
}

import type { TDb } from "../db";
import { AppError } from "../errors";
import { hashToken } from "./hash-token";

/**
 * The user behind an `Authorization: Bearer <token>` header. Missing, unknown and revoked tokens are
 * all UNAUTHORIZED with a message that says how to get one.
 */
export async function authenticateApiToken(db: TDb, authorization: string | null): Promise<{ userId: string }> {
  const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match?.[1]) {
    throw new AppError(
      "UNAUTHORIZED",
      "Send an API token as `Authorization: Bearer <token>`; create one in Settings → API tokens.",
    );
  }
  const row = await db.apiToken.findUnique({ where: { tokenHash: hashToken(match[1]) } });
  if (!row || row.revokedAt) throw new AppError("UNAUTHORIZED", "This API token is unknown or revoked.");
  // Best effort and coarse (once a minute) so reads do not turn into a write each.
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => {});
  }
  return { userId: row.userId };
}

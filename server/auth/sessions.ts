import type { TDb } from "../db";
import { AppError } from "../errors";

export type TSessionView = {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  ipAddress: string | null;
  current: boolean;
};

/**
 * The user's signed-in browsers, newest activity first. Ids only: the session token (the cookie's secret)
 * never leaves the server, so listing sessions cannot leak a usable credential.
 */
export async function listUserSessions(
  db: TDb,
  input: { userId: string; currentSessionId: string | null; now?: Date },
): Promise<TSessionView[]> {
  const rows = await db.session.findMany({
    where: { userId: input.userId, expiresAt: { gt: input.now ?? new Date() } },
    orderBy: { updatedAt: "desc" },
    take: 100,
  });
  return rows.map((row) => ({
    id: row.id,
    createdAt: row.createdAt,
    lastSeenAt: row.updatedAt,
    expiresAt: row.expiresAt,
    userAgent: row.userAgent || null,
    ipAddress: row.ipAddress || null,
    current: row.id === input.currentSessionId,
  }));
}

/** Signs one of the user's browsers out (deletes the session row; its cookie stops working at once). */
export async function revokeUserSession(db: TDb, input: { userId: string; sessionId: string }): Promise<void> {
  const { count } = await db.session.deleteMany({ where: { id: input.sessionId, userId: input.userId } });
  if (count === 0) throw new AppError("NOT_FOUND", "No such session.");
}

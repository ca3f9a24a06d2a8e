import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { TDb, TTx } from "../db";
import { AppError } from "../errors";
import { assertOwner } from "./access-state";

export const INVITE_TTL_DAYS_DEFAULT = 7;
export const ZCreateInviteSchema = z.object({
  /** Whom it is for, to tell invites apart ("Sam", "sam@example.com"); not enforced. */
  note: z.string().trim().max(200).optional(),
  ttlDays: z.number().int().min(1).max(30).default(INVITE_TTL_DAYS_DEFAULT),
});

export type TInviteStatus = "pending" | "used" | "revoked" | "expired";
export type TInviteView = {
  id: string;
  note: string | null;
  createdAt: Date;
  expiresAt: Date;
  status: TInviteStatus;
  usedBy: { name: string; email: string | null } | null;
};

/** Invite tokens are 32 random bytes: a fast hash is enough (no stretching needed), as for API tokens. */
export function hashInviteToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A new single-use invite. The token is returned once (for the link); only its hash is stored. Owner only. */
export async function createInvite(
  db: TDb,
  input: { userId: string; note?: string; ttlDays?: number; now?: Date },
): Promise<{ token: string; invite: TInviteView }> {
  await assertOwner(db, input.userId);
  const parsed = ZCreateInviteSchema.parse({ note: input.note, ttlDays: input.ttlDays });
  const token = randomBytes(32).toString("base64url");
  const now = input.now ?? new Date();
  const row = await db.invite.create({
    data: {
      tokenHash: hashInviteToken(token),
      note: parsed.note || null,
      createdById: input.userId,
      expiresAt: new Date(now.getTime() + parsed.ttlDays * 86_400_000),
    },
  });
  return { token, invite: toView(row, null, now) };
}

/** The owner's invites, newest first (the last 100). Owner only. */
export async function listInvites(db: TDb, input: { userId: string; now?: Date }): Promise<TInviteView[]> {
  await assertOwner(db, input.userId);
  const rows = await db.invite.findMany({
    where: { createdById: input.userId },
    orderBy: { createdAt: "desc" },
    take: 100,
    include: { usedBy: { select: { name: true, email: true } } },
  });
  const now = input.now ?? new Date();
  return rows.map((row) => toView(row, row.usedBy, now));
}

/** Withdraws an unused invite; its link stops working at once. Owner only; another's invite is NOT_FOUND. */
export async function revokeInvite(db: TDb, input: { userId: string; inviteId: string }): Promise<void> {
  await assertOwner(db, input.userId);
  const invite = await db.invite.findFirst({ where: { id: input.inviteId, createdById: input.userId } });
  if (!invite) throw new AppError("NOT_FOUND", "No such invite.");
  if (invite.usedAt) throw new AppError("CONFLICT", "This invite has already been used; it cannot be withdrawn.");
  if (!invite.revokedAt) await db.invite.update({ where: { id: invite.id }, data: { revokedAt: new Date() } });
}

/** Whether a token would be accepted now (the accept-invite page says what is wrong before the form). */
export async function checkInvite(db: TDb | TTx, token: string, now = new Date()): Promise<TInviteStatus | "unknown"> {
  const invite = await db.invite.findUnique({ where: { tokenHash: hashInviteToken(token) } });
  if (!invite) return "unknown";
  return statusOf(invite, now);
}

type TInviteRow = {
  id: string;
  note: string | null;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
};

function statusOf(row: TInviteRow, now: Date): TInviteStatus {
  if (row.usedAt) return "used";
  if (row.revokedAt) return "revoked";
  return row.expiresAt.getTime() <= now.getTime() ? "expired" : "pending";
}

function toView(row: TInviteRow, usedBy: TInviteView["usedBy"], now: Date): TInviteView {
  return {
    id: row.id,
    note: row.note,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    status: statusOf(row, now),
    usedBy,
  };
}

import { randomBytes } from "node:crypto";
import { type TCreateChannelInput, ZCreateChannelInputSchema } from "@/contracts/notifications";
import type { TDb } from "../db";
import { AppError, invalidInputError } from "../errors";
import type { NotificationChannel } from "../generated/prisma/client";
import { channelKind } from "./channel-kinds";
import type { TNotifyConfig } from "./config";

export type TChannelView = {
  id: string;
  kind: NotificationChannel["kind"];
  name: string;
  target: string;
  hasSecret: boolean;
  paused: boolean;
  pausedReason: string | null;
  consecutiveFailures: number;
  lastStatus: string | null;
  lastError: string | null;
  lastDeliveryAt: Date | null;
  createdAt: Date;
};

export function toChannelView(c: NotificationChannel): TChannelView {
  return {
    id: c.id,
    kind: c.kind,
    name: c.name,
    target: channelKind(c.kind).redact(c.target),
    hasSecret: c.secret !== null,
    paused: c.pausedAt !== null,
    pausedReason: c.pausedReason,
    consecutiveFailures: c.consecutiveFailures,
    lastStatus: c.lastStatus,
    lastError: c.lastError,
    lastDeliveryAt: c.lastDeliveryAt,
    createdAt: c.createdAt,
  };
}

export async function listChannels(db: TDb, input: { userId: string }): Promise<TChannelView[]> {
  const rows = await db.notificationChannel.findMany({
    where: { userId: input.userId },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(toChannelView);
}

/** The channel of this person, or NOT_FOUND (another person's id is not found either). */
export async function getOwnChannel(
  db: TDb,
  input: { userId: string; channelId: string },
): Promise<NotificationChannel> {
  const row = await db.notificationChannel.findFirst({ where: { id: input.channelId, userId: input.userId } });
  if (!row) throw new AppError("NOT_FOUND", "No such notification channel.");
  return row;
}

/**
 * Adds a channel. Its kind checks the target first (docs/notifications.md: email needs SMTP; a URL must pass the
 * SSRF rules now, and the send re-checks every connection); a signed kind gets its own secret, returned once here
 * and revealable later by its owner.
 */
export async function createChannel(
  db: TDb,
  input: { userId: string; channel: TCreateChannelInput; config: TNotifyConfig },
): Promise<{ channel: TChannelView; secret: string | null }> {
  const parsed = ZCreateChannelInputSchema.safeParse(input.channel);
  if (!parsed.success) throw invalidInputError(parsed.error.issues);
  const c = parsed.data;
  const kind = channelKind(c.kind);
  await kind.checkTarget(input.config, c.target);
  const secret = kind.signed ? randomBytes(32).toString("hex") : null;
  const row = await db.notificationChannel.create({
    data: {
      userId: input.userId,
      kind: c.kind,
      name: c.name || kind.defaultName(c.target),
      target: c.target,
      secret,
      unsubscribeToken: randomBytes(24).toString("base64url"),
    },
  });
  return { channel: toChannelView(row), secret };
}

export async function revealChannelSecret(
  db: TDb,
  input: { userId: string; channelId: string },
): Promise<{ secret: string | null }> {
  const row = await getOwnChannel(db, input);
  return { secret: row.secret };
}

export async function deleteChannel(db: TDb, input: { userId: string; channelId: string }): Promise<{ ok: true }> {
  const { count } = await db.notificationChannel.deleteMany({ where: { id: input.channelId, userId: input.userId } });
  if (count === 0) throw new AppError("NOT_FOUND", "No such notification channel.");
  return { ok: true };
}

/** Un-pauses a channel (after repeated failures or an unsubscribe); its failure count starts again. */
export async function resumeChannel(db: TDb, input: { userId: string; channelId: string }): Promise<TChannelView> {
  await getOwnChannel(db, input);
  const row = await db.notificationChannel.update({
    where: { id: input.channelId },
    data: { pausedAt: null, pausedReason: null, consecutiveFailures: 0 },
  });
  return toChannelView(row);
}

/** The email List-Unsubscribe link: the token alone names the channel; it pauses it (resumable in Settings). */
export async function unsubscribeByToken(db: TDb, input: { token: string; now?: Date }): Promise<boolean> {
  const { count } = await db.notificationChannel.updateMany({
    where: { unsubscribeToken: input.token },
    data: { pausedAt: input.now ?? new Date(), pausedReason: "Unsubscribed from the email link." },
  });
  return count > 0;
}

export function unsubscribeUrl(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/+$/, "")}/api/notifications/unsubscribe/${encodeURIComponent(token)}`;
}

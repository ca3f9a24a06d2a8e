import { randomUUID } from "node:crypto";
import type { TDb } from "../db";
import { AppError } from "../errors";
import { getOwnChannel, type TChannelView, toChannelView } from "./channels";
import type { TNotifyConfig } from "./config";
import { deliverDue } from "./deliver";

/**
 * "Send test": one notice through the same outbox and sender as real ones (so it proves the whole path), sent
 * now; answers with the channel's status after the attempt (delivered, or the receiver's error).
 */
export async function sendTestNotice(
  db: TDb,
  input: { userId: string; channelId: string; config: TNotifyConfig; now?: Date },
): Promise<TChannelView> {
  const channel = await getOwnChannel(db, input);
  if (channel.pausedAt) throw new AppError("CONFLICT", "This channel is paused: resume it first.");
  const now = input.now ?? new Date();
  await db.notificationDelivery.create({
    data: {
      userId: input.userId,
      channelId: channel.id,
      dedupKey: `test:${randomUUID()}`,
      kind: "notice",
      notice: {
        title: "Test notification from Bellwether",
        text: `This is a test of the channel “${channel.name}”. Material changes will arrive like this.`,
        url: input.config.appUrl,
      },
      dueAt: now,
    },
  });
  await deliverDue(db, { config: input.config, now, channelId: channel.id });
  return toChannelView(await getOwnChannel(db, input));
}

export type TDeliveryLogView = {
  id: string;
  kind: string;
  status: string;
  attempts: number;
  dueAt: Date;
  sentAt: Date | null;
  lastError: string | null;
  log: { at: string; ok: boolean; error?: string }[];
};

/** A channel's recent deliveries with their attempts (the delivery log in Settings). */
export async function listChannelDeliveries(
  db: TDb,
  input: { userId: string; channelId: string; limit?: number },
): Promise<TDeliveryLogView[]> {
  await getOwnChannel(db, input);
  const rows = await db.notificationDelivery.findMany({
    where: { channelId: input.channelId, userId: input.userId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit ?? 20,
  });
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    status: r.status,
    attempts: r.attempts,
    dueAt: r.dueAt,
    sentAt: r.sentAt,
    lastError: r.lastError,
    log: Array.isArray(r.log) ? (r.log as TDeliveryLogView["log"]) : [],
  }));
}

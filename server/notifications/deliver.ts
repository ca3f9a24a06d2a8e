import { randomUUID } from "node:crypto";
import { z } from "zod";
import { CapabilityFailure } from "../capabilities";
import type { TDb } from "../db";
import type { NotificationChannel, Prisma } from "../generated/prisma/client";
import { logger } from "../logger";
import { channelKind } from "./channel-kinds";
import { unsubscribeUrl } from "./channels";
import type { TNotifyConfig } from "./config";
import { loadNoticeChanges } from "./load-changes";
import { renderChanges, renderPlain, type TMessage } from "./render-message";
import { retryDelayMs } from "./schedule";

/** After this many attempts a delivery is given up (marked failed, shown in the log). */
export const MAX_ATTEMPTS = 8;
/** Deliveries one sender pass claims at most. */
export const CLAIM_BATCH = 50;

type TClaimed = {
  id: string;
  userId: string;
  channelId: string;
  changeId: string | null;
  kind: string;
  notice: unknown;
  grouped: boolean;
  attempts: number;
  log: unknown;
};

export type TDeliverSummary = { claimed: number; sent: number; failed: number };

const ZNoticeSchema = z.object({ title: z.string(), text: z.string(), url: z.string().nullable() });
const ZLogSchema = z.array(z.object({ at: z.string(), ok: z.boolean(), error: z.string().optional() }));

/**
 * One pass of the sender: claims due deliveries (FOR UPDATE SKIP LOCKED, then a lease so a crashed sender's rows
 * come back after `leaseMs`), sends each channel's grouped rows as one message and the rest one by one, and records
 * the outcome fenced on the lease. Exactly once per (change, channel) within the database; across a crash between
 * the send and its record the resend carries the same delivery id (webhook header, email Message-ID) so receivers
 * can tell. Failures retry with exponential backoff; a channel pauses after `pauseAfterFailures` in a row.
 */
export async function deliverDue(
  db: TDb,
  input: { config: TNotifyConfig; now: Date; channelId?: string; limit?: number },
): Promise<TDeliverSummary> {
  const { config, now } = input;
  const token = randomUUID();
  const leaseUntil = new Date(now.getTime() + config.leaseMs);
  const onlyChannel = input.channelId ?? null;
  const claimed = await db.$queryRaw<TClaimed[]>`
    UPDATE "NotificationDelivery" d
    SET "leaseToken" = ${token}, "leaseExpiresAt" = ${leaseUntil}, "attempts" = d."attempts" + 1
    WHERE d.id IN (
      SELECT x.id FROM "NotificationDelivery" x
      JOIN "NotificationChannel" c ON c.id = x."channelId"
      WHERE x.status = 'pending' AND x."dueAt" <= ${now}
        AND (x."leaseExpiresAt" IS NULL OR x."leaseExpiresAt" <= ${now})
        AND c."pausedAt" IS NULL
        AND (${onlyChannel}::text IS NULL OR x."channelId" = ${onlyChannel})
      ORDER BY x."channelId", x."dueAt", x.id
      LIMIT ${input.limit ?? CLAIM_BATCH}
      FOR UPDATE OF x SKIP LOCKED
    )
    RETURNING d.id, d."userId", d."channelId", d."changeId", d.kind, d.notice, d.grouped, d.attempts, d.log`;
  const summary: TDeliverSummary = { claimed: claimed.length, sent: 0, failed: 0 };
  const byChannel = new Map<string, TClaimed[]>();
  for (const row of claimed) byChannel.set(row.channelId, [...(byChannel.get(row.channelId) ?? []), row]);
  for (const [channelId, rows] of byChannel) {
    const channel = await db.notificationChannel.findUnique({ where: { id: channelId } });
    if (!channel) continue; // deleted meanwhile: its deliveries went with it
    const units = [rows.filter((r) => r.grouped), ...rows.filter((r) => !r.grouped).map((r) => [r])].filter(
      (u) => u.length > 0,
    );
    for (const unit of units) {
      const ok = await sendUnit(db, { channel, unit, token, config, now });
      if (ok) summary.sent += unit.length;
      else summary.failed += unit.length;
    }
  }
  return summary;
}

async function buildMessage(db: TDb, unit: TClaimed[], config: TNotifyConfig): Promise<TMessage | null> {
  const first = unit[0];
  if (!first) return null;
  if (first.kind !== "change") {
    const notice = ZNoticeSchema.safeParse(first.notice);
    return notice.success ? renderPlain(notice.data) : null;
  }
  const ids = unit.flatMap((r) => (r.changeId ? [r.changeId] : []));
  const changes = await loadNoticeChanges(db, { userId: first.userId, changeIds: ids, appUrl: config.appUrl });
  const list = [...changes.values()];
  return list.length ? renderChanges(list, { grouped: first.grouped }) : null;
}

/** One delivery through the channel's kind (channel-kinds/). */
function send(channel: NotificationChannel, deliveryId: string, message: TMessage, config: TNotifyConfig, now: Date) {
  const unsubscribe = unsubscribeUrl(config.appUrl, channel.unsubscribeToken);
  return channelKind(channel.kind).send(config, { channel, deliveryId, message, now, unsubscribeUrl: unsubscribe });
}

function appendLog(log: unknown, entry: { at: string; ok: boolean; error?: string }): Prisma.InputJsonValue {
  const parsed = ZLogSchema.safeParse(log);
  return [...(parsed.success ? parsed.data : []), entry].slice(-20);
}

async function sendUnit(
  db: TDb,
  input: { channel: NotificationChannel; unit: TClaimed[]; token: string; config: TNotifyConfig; now: Date },
): Promise<boolean> {
  const { channel, unit, token, config, now } = input;
  const ids = unit.map((r) => r.id);
  const deliveryId = ids[0] as string;
  let error: string | null = null;
  try {
    const message = await buildMessage(db, unit, config);
    if (!message) {
      // Nothing left to say (the change was deleted with its tracker): close the rows without sending.
      await db.notificationDelivery.updateMany({
        where: { id: { in: ids }, leaseToken: token },
        data: { status: "failed", lastError: "Nothing to send any more.", leaseToken: null },
      });
      return false;
    }
    await send(channel, deliveryId, message, config, now);
  } catch (e) {
    error = (e instanceof Error ? e.message : String(e)).slice(0, 500);
    // Not the error itself: a webhook error names its URL, and Slack and Discord keep their secret in the path.
    logger.child({ component: "notifications" }).warn("delivery failed", {
      channelId: channel.id,
      kind: channel.kind,
      code: e instanceof CapabilityFailure ? e.code : e instanceof Error ? e.name : "unknown",
    });
  }
  const at = now.toISOString();
  await db.$transaction(async (tx) => {
    for (const row of unit) {
      const log = appendLog(row.log, error ? { at, ok: false, error } : { at, ok: true });
      const data: Prisma.NotificationDeliveryUpdateManyMutationInput = error
        ? row.attempts >= MAX_ATTEMPTS
          ? { status: "failed", lastError: error, leaseToken: null, leaseExpiresAt: null, log }
          : {
              dueAt: new Date(now.getTime() + retryDelayMs(row.attempts)),
              lastError: error,
              leaseToken: null,
              leaseExpiresAt: null,
              log,
            }
        : { status: "sent", sentAt: now, lastError: null, leaseToken: null, leaseExpiresAt: null, log };
      // Fenced on the lease: a sender whose lease ran out and was re-claimed records nothing.
      await tx.notificationDelivery.updateMany({ where: { id: row.id, leaseToken: token }, data });
    }
    if (!error) {
      await tx.notificationChannel.update({
        where: { id: channel.id },
        data: { consecutiveFailures: 0, lastStatus: "sent", lastError: null, lastDeliveryAt: now },
      });
      return;
    }
    const updated = await tx.notificationChannel.update({
      where: { id: channel.id },
      data: { consecutiveFailures: { increment: 1 }, lastStatus: "failed", lastError: error, lastDeliveryAt: now },
    });
    if (updated.consecutiveFailures >= config.pauseAfterFailures && updated.pausedAt === null) {
      const reason = `Paused after ${updated.consecutiveFailures} failed deliveries in a row. Last error: ${error}`;
      await tx.notificationChannel.update({ where: { id: channel.id }, data: { pausedAt: now, pausedReason: reason } });
      // The person is told in the app (the inbox), the one channel that cannot fail this way.
      await tx.inboxItem.createMany({
        data: [
          {
            userId: channel.userId,
            dedupKey: `paused:${channel.id}:${now.getTime()}`,
            title: `Notifications to “${channel.name}” are paused`,
            body: `${reason} Fix it and resume the channel in Settings.`,
          },
        ],
        skipDuplicates: true,
      });
    }
  });
  return error === null;
}

export type TDeliveryBacklog = {
  /** Pending deliveries, whenever due (digests and quiet hours wait for their time). */
  waiting: number;
  dueNow: number;
  nextDueAt: Date | null;
  /** Changes recorded but not yet turned into deliveries. */
  unsentChanges: number;
};

/** What the sender has left to do, across all people (docs/scheduling.md; the System page). */
export async function getDeliveryBacklog(db: TDb, input: { now: Date }): Promise<TDeliveryBacklog> {
  const [[deliveries], unsentChanges] = await Promise.all([
    db.$queryRaw<{ waiting: number; dueNow: number; nextDueAt: Date | null }[]>`
      SELECT count(*)::int AS waiting, (count(*) FILTER (WHERE "dueAt" <= ${input.now}))::int AS "dueNow",
        min("dueAt") AS "nextDueAt"
      FROM "NotificationDelivery" WHERE status = 'pending'`,
    db.changeOutbox.count(),
  ]);
  return {
    waiting: deliveries?.waiting ?? 0,
    dueNow: deliveries?.dueNow ?? 0,
    nextDueAt: deliveries?.nextDueAt ?? null,
    unsentChanges,
  };
}

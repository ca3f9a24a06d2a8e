import type { TDb, TTx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { takeChangeOutbox } from "../timeline";
import type { TNotifyConfig } from "./config";
import { loadNoticeChanges } from "./load-changes";
import { changeLines, type TPlainNotice } from "./render-message";
import { getNotificationDefaults, resolveRouting } from "./routing";
import { dueFor } from "./schedule";

const OUTBOX_BATCH = 100;

/**
 * Turns outbox rows into deliveries (one per change and channel of the tracker's owner, unique per (channel, key))
 * and inbox items, in the same transaction that takes the rows: a crash leaves the rows for the next pass, and a
 * second worker takes other rows (SKIP LOCKED). Routing decides when each is due (immediate / digest / quiet hours).
 */
export async function fanOutChanges(db: TDb, input: { config: TNotifyConfig; now: Date }): Promise<number> {
  return db.$transaction(async (tx) => {
    const entries = await takeChangeOutbox(tx, { limit: OUTBOX_BATCH });
    const byUser = new Map<string, string[]>();
    for (const e of entries) byUser.set(e.userId, [...(byUser.get(e.userId) ?? []), e.changeId]);
    for (const [userId, changeIds] of byUser) {
      await fanOutForUser(tx, { userId, changeIds, config: input.config, now: input.now });
    }
    return entries.length;
  });
}

type TPerson = {
  timeZone: string | null;
  quiet: { startMinute: number | null; endMinute: number | null };
  digestHour: number;
};

/*
 * Reads inside a transaction run one after another: a transaction is one connection, and a connection answers one
 * query at a time (node-postgres queues a second one and warns that this will stop working).
 */
async function loadPerson(tx: TTx, userId: string) {
  const defaults = await getNotificationDefaults(tx, { userId });
  const settings = await tx.userSettings.findUnique({ where: { userId }, select: { timezone: true } });
  const channels = await tx.notificationChannel.findMany({ where: { userId, pausedAt: null }, select: { id: true } });
  const person: TPerson = {
    timeZone: settings?.timezone ?? null,
    quiet: { startMinute: defaults.quietStartMinute, endMinute: defaults.quietEndMinute },
    digestHour: defaults.digestHour,
  };
  return { defaults, person, channels };
}

async function fanOutForUser(
  tx: TTx,
  input: { userId: string; changeIds: string[]; config: TNotifyConfig; now: Date },
): Promise<void> {
  const { userId, now } = input;
  const { defaults, person, channels } = await loadPerson(tx, userId);
  const notices = await loadNoticeChanges(tx, { userId, changeIds: input.changeIds, appUrl: input.config.appUrl });
  const routes = await tx.trackerNotificationRoute.findMany({ where: { userId } });
  const routeOf = new Map(routes.map((r) => [r.trackerId, r]));
  const deliveries: Prisma.NotificationDeliveryCreateManyInput[] = [];
  const inbox: Prisma.InboxItemCreateManyInput[] = [];
  for (const notice of notices.values()) {
    const routing = resolveRouting(defaults, routeOf.get(notice.trackerId));
    const due = dueFor(notice.materiality === "material" ? routing.material : routing.notable, now, person);
    if (!due) continue;
    const key = `change:${notice.changeId}`;
    for (const channel of channels) {
      deliveries.push({
        userId,
        channelId: channel.id,
        dedupKey: key,
        changeId: notice.changeId,
        kind: "change",
        grouped: due.grouped,
        dueAt: due.dueAt,
      });
    }
    inbox.push({
      userId,
      dedupKey: key,
      changeId: notice.changeId,
      trackerId: notice.trackerId,
      title: `${notice.materiality === "material" ? "Material" : "Notable"} change: ${notice.decision}`,
      body: changeLines(notice)
        .map((l) => l.text)
        .join("\n"),
    });
  }
  if (deliveries.length) await tx.notificationDelivery.createMany({ data: deliveries, skipDuplicates: true });
  if (inbox.length) await tx.inboxItem.createMany({ data: inbox, skipDuplicates: true });
}

/**
 * A notice that is not a change (a failing tracker, its recovery): to the inbox and to every active channel now,
 * unless quiet hours hold it. `key` makes it once-only.
 */
export async function enqueuePlainNotice(
  tx: TTx,
  input: { userId: string; key: string; trackerId: string | null; notice: TPlainNotice; now: Date },
): Promise<void> {
  const { person, channels } = await loadPerson(tx, input.userId);
  const due = dueFor("immediate", input.now, person);
  if (due && channels.length) {
    await tx.notificationDelivery.createMany({
      data: channels.map((c) => ({
        userId: input.userId,
        channelId: c.id,
        dedupKey: input.key,
        kind: "notice",
        notice: input.notice,
        grouped: false,
        dueAt: due.dueAt,
      })),
      skipDuplicates: true,
    });
  }
  await tx.inboxItem.createMany({
    data: [
      {
        userId: input.userId,
        dedupKey: input.key,
        trackerId: input.trackerId,
        title: input.notice.title,
        body: input.notice.text,
      },
    ],
    skipDuplicates: true,
  });
}

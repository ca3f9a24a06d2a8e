import { createHash, randomBytes } from "node:crypto";
import { Feed } from "feed";
import type { TDb } from "../db";
import { AppError } from "../errors";
import { loadNoticeChanges } from "./load-changes";
import { changeHeadline, changeLines } from "./render-message";

/**
 * The Atom feed of a person's material changes, or of one tracker's (docs/notifications.md), at a secret URL: the token is
 * shown once when made (only its sha256 is stored); making a new one or revoking makes the old URL answer 404.
 */

const hash = (token: string) => createHash("sha256").update(token).digest("hex");

export function feedUrl(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/+$/, "")}/api/notifications/feed/${encodeURIComponent(token)}`;
}

/** A new secret feed URL for the person (or one of their trackers); any previous one stops working. */
export async function rotateFeedToken(
  db: TDb,
  input: { userId: string; trackerId?: string | undefined; appUrl: string },
): Promise<{ url: string }> {
  const token = randomBytes(24).toString("base64url");
  if (input.trackerId) {
    const tracker = await db.tracker.findFirst({ where: { id: input.trackerId, userId: input.userId } });
    if (!tracker) throw new AppError("NOT_FOUND", "Tracker not found.");
    await db.trackerNotificationRoute.upsert({
      where: { trackerId: input.trackerId },
      create: { trackerId: input.trackerId, userId: input.userId, feedTokenHash: hash(token) },
      update: { feedTokenHash: hash(token) },
    });
  } else {
    await db.notificationSettings.upsert({
      where: { userId: input.userId },
      create: { userId: input.userId, feedTokenHash: hash(token) },
      update: { feedTokenHash: hash(token) },
    });
  }
  return { url: feedUrl(input.appUrl, token) };
}

export async function revokeFeedToken(
  db: TDb,
  input: { userId: string; trackerId?: string | undefined },
): Promise<{ ok: true }> {
  if (input.trackerId) {
    await db.trackerNotificationRoute.updateMany({
      where: { trackerId: input.trackerId, userId: input.userId },
      data: { feedTokenHash: null },
    });
  } else {
    await db.notificationSettings.updateMany({ where: { userId: input.userId }, data: { feedTokenHash: null } });
  }
  return { ok: true };
}

/** Whether the person (and which of their trackers) has a live feed URL; the URL itself is not kept. */
export async function feedStatus(db: TDb, input: { userId: string }): Promise<{ active: boolean }> {
  const row = await db.notificationSettings.findUnique({
    where: { userId: input.userId },
    select: { feedTokenHash: true },
  });
  return { active: !!row?.feedTokenHash };
}

/** The Atom XML for a feed token, or null (unknown or revoked → the route answers 404). */
export async function renderAtomFeed(
  db: TDb,
  input: { token: string; appUrl: string; limit?: number },
): Promise<string | null> {
  const tokenHash = hash(input.token);
  const [person, trackerRoute] = await Promise.all([
    db.notificationSettings.findUnique({ where: { feedTokenHash: tokenHash }, select: { userId: true } }),
    db.trackerNotificationRoute.findUnique({
      where: { feedTokenHash: tokenHash },
      select: { userId: true, trackerId: true, tracker: { select: { decision: true } } },
    }),
  ]);
  const userId = person?.userId ?? trackerRoute?.userId;
  if (!userId) return null;
  const rows = await db.entityChange.findMany({
    where: {
      materiality: "material",
      tracker: { userId },
      ...(trackerRoute ? { trackerId: trackerRoute.trackerId } : {}),
    },
    orderBy: [{ capturedAt: "desc" }, { id: "desc" }],
    take: input.limit ?? 50,
    select: { id: true },
  });
  const notices = await loadNoticeChanges(db, { userId, changeIds: rows.map((r) => r.id), appUrl: input.appUrl });
  const base = input.appUrl.replace(/\/+$/, "");
  const list = [...notices.values()].reverse();
  const feed = new Feed({
    title: trackerRoute ? `Bellwether: ${trackerRoute.tracker.decision}` : "Bellwether: material changes",
    id: `${base}/feeds/${trackerRoute ? `tracker/${trackerRoute.trackerId}` : `user/${userId}`}`,
    link: base,
    updated: list[0]?.capturedAt ?? new Date(0),
    copyright: "",
    generator: "Bellwether",
  });
  for (const n of list) {
    feed.addItem({
      // A set's entry is titled by its roll-up's headline and lists its members (docs/notifications.md).
      title: `${n.decision}: ${changeHeadline(n)}`,
      id: `urn:bellwether:change:${n.changeId}`,
      link: n.url,
      date: n.capturedAt,
      description: [
        ...changeLines(n).map((l) => `${l.text}${l.sub ? ` (${l.sub})` : ""}${l.url ? ` ${l.url}` : ""}`),
        ...(n.insight ? [`Why it matters: ${n.insight}`] : []),
      ].join("\n"),
    });
  }
  return feed.atom1();
}

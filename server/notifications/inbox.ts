import type { TDb } from "../db";

export type TInboxItemView = {
  id: string;
  title: string;
  body: string;
  href: string | null;
  read: boolean;
  createdAt: Date;
};

/** The person's inbox, newest first; links go to the timeline entry (or the tracker). */
export async function listInbox(db: TDb, input: { userId: string; limit: number }): Promise<TInboxItemView[]> {
  const rows = await db.inboxItem.findMany({
    where: { userId: input.userId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit,
  });
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    body: r.body,
    href: r.trackerId
      ? `/trackers/${r.trackerId}${r.changeId ? `#change-${r.changeId}` : ""}`
      : "/settings#notifications",
    read: r.readAt !== null,
    createdAt: r.createdAt,
  }));
}

export async function countUnread(db: TDb, input: { userId: string }): Promise<{ unread: number }> {
  return { unread: await db.inboxItem.count({ where: { userId: input.userId, readAt: null } }) };
}

/** Marks the given items (or all) read; another person's ids change nothing. */
export async function markInboxRead(
  db: TDb,
  input: { userId: string; ids?: string[] | undefined; now?: Date },
): Promise<{ unread: number }> {
  await db.inboxItem.updateMany({
    where: { userId: input.userId, readAt: null, ...(input.ids ? { id: { in: input.ids } } : {}) },
    data: { readAt: input.now ?? new Date() },
  });
  return countUnread(db, input);
}

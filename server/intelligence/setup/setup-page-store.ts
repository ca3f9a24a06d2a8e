import type { TPageSnapshot } from "../../capabilities";
import type { TDb, TTx } from "../../db";
import { getSetupSession } from "./session";

/**
 * The one writer of SetupPage: the sample page made inert for the page view (docs/page-view.md), kept apart
 * from the session so no chat turn loads it. Reached only through the person's own session.
 */

export type TSetupPage = {
  url: string;
  html: string;
  truncated: boolean;
  readAt: Date;
  /** The page before the last re-read, when there was one. */
  earlier: { html: string; readAt: Date } | null;
};

/**
 * Keeps the snapshot of the session's sample. `keepEarlier`: the page read before stays as "earlier" (a re-read to
 * fix a field that stopped reading shows where it used to be); a new binding or read mode replaces both.
 */
export async function saveSetupPage(
  db: TDb | TTx,
  input: {
    userId: string;
    sessionId: string;
    url: string;
    snapshot: TPageSnapshot;
    keepEarlier?: boolean;
    /** With keepEarlier, when the session kept no page before: the page as it was (e.g. at the last recorded change). */
    earlier?: { html: string; readAt: Date } | null;
  },
): Promise<void> {
  const session = await getSetupSession(db, input);
  const data = { url: input.url, html: input.snapshot.html, truncated: input.snapshot.truncated, readAt: new Date() };
  const kept = input.keepEarlier
    ? await db.setupPage.findUnique({ where: { sessionId: session.id }, select: { html: true, readAt: true } })
    : null;
  const before = input.keepEarlier ? (kept ?? input.earlier ?? null) : null;
  const earlier = { earlierHtml: before?.html ?? null, earlierReadAt: before?.readAt ?? null };
  await db.setupPage.upsert({
    where: { sessionId: session.id },
    create: { sessionId: session.id, ...data, ...earlier },
    update: { ...data, ...earlier },
  });
}

/** Forgets the snapshot (a sample that has none, e.g. a JSON endpoint, replaced one that had). */
export async function clearSetupPage(db: TDb | TTx, input: { userId: string; sessionId: string }): Promise<void> {
  const session = await getSetupSession(db, input);
  await db.setupPage.deleteMany({ where: { sessionId: session.id } });
}

export async function loadSetupPage(
  db: TDb | TTx,
  input: { userId: string; sessionId: string },
): Promise<TSetupPage | null> {
  const session = await getSetupSession(db, input);
  const row = await db.setupPage.findUnique({ where: { sessionId: session.id } });
  if (!row) return null;
  return {
    url: row.url,
    html: row.html,
    truncated: row.truncated,
    readAt: row.readAt,
    earlier: row.earlierHtml && row.earlierReadAt ? { html: row.earlierHtml, readAt: row.earlierReadAt } : null,
  };
}

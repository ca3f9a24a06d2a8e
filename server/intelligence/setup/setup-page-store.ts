import { z } from "zod";
import { type TStoredProposal, ZStoredProposalSchema } from "@/contracts/setup-page-view";
import type { TPageSnapshot } from "../../capabilities";
import type { TDb, TTx } from "../../db";
import { Prisma } from "../../generated/prisma/client";
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
  /** The agent's proposed anchors for fields that read nothing on this page (model mode; empty otherwise). */
  proposals: TStoredProposal[];
  /** The page's picture, without its bytes (`loadSetupPageShot`): its size and each copy element's box on it. */
  shot: { width: number; height: number; boxes: TPageBox[] } | null;
};

/** [element, x, y, width, height]: a copy element's box on the picture. */
export type TPageBox = [number, number, number, number, number];
/** The picture kept with a page (docs/page-view.md), its boxes keyed by the copy's element numbers. */
export type TPageShotKept = { image: Uint8Array; width: number; height: number; boxes: TPageBox[] };

const ZBoxesSchema = z.array(z.tuple([z.number(), z.number(), z.number(), z.number(), z.number()])).catch([]);

const ZStoredProposalsSchema = z.array(ZStoredProposalSchema).catch([]);

/**
 * Keeps the snapshot of the session's sample. `keepEarlier`: the page kept before stays as "earlier" (a re-read to
 * fix a field that stopped reading shows where it used to be) — the first one kept, so a second re-read does not
 * replace it with a page where the field already read nothing; a new binding or read mode replaces both.
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
    /** The page's picture, when a browser took one; a page without one clears the last. */
    shot?: TPageShotKept | null;
  },
): Promise<void> {
  const session = await getSetupSession(db, input);
  const shot = input.shot ?? null;
  const data = {
    url: input.url,
    html: input.snapshot.html,
    truncated: input.snapshot.truncated,
    readAt: new Date(),
    shotImage: shot ? Buffer.from(shot.image) : null,
    shotWidth: shot?.width ?? null,
    shotHeight: shot?.height ?? null,
    shotBoxes: shot ? (shot.boxes as unknown as Prisma.InputJsonValue) : Prisma.DbNull,
  };
  const kept = input.keepEarlier
    ? await db.setupPage.findUnique({
        where: { sessionId: session.id },
        select: { html: true, readAt: true, earlierHtml: true, earlierReadAt: true },
      })
    : null;
  // Before stays the first page kept (where the fields read): re-reading twice does not lose it.
  const keptEarlier =
    kept?.earlierHtml && kept.earlierReadAt ? { html: kept.earlierHtml, readAt: kept.earlierReadAt } : null;
  const before = input.keepEarlier ? (keptEarlier ?? kept ?? input.earlier ?? null) : null;
  const earlier = { earlierHtml: before?.html ?? null, earlierReadAt: before?.readAt ?? null };
  // A new page: proposals made for the one before no longer point at anything.
  const proposals = Prisma.DbNull;
  await db.setupPage.upsert({
    where: { sessionId: session.id },
    create: { sessionId: session.id, ...data, ...earlier, proposals },
    update: { ...data, ...earlier, proposals },
  });
}

/** Keeps the agent's proposals for the page as it is now (after a re-read in model mode). */
export async function saveSetupProposals(
  db: TDb | TTx,
  input: { userId: string; sessionId: string; proposals: TStoredProposal[] },
): Promise<void> {
  const session = await getSetupSession(db, input);
  await db.setupPage.updateMany({
    where: { sessionId: session.id },
    data: { proposals: input.proposals as unknown as Prisma.InputJsonValue },
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
  // The picture's bytes stay in the database: only the page's picture route (loadSetupPageShot) reads them.
  const row = await db.setupPage.findUnique({ where: { sessionId: session.id }, omit: { shotImage: true } });
  if (!row) return null;
  const boxes = ZBoxesSchema.parse(row.shotBoxes ?? []);
  return {
    url: row.url,
    html: row.html,
    truncated: row.truncated,
    readAt: row.readAt,
    earlier: row.earlierHtml && row.earlierReadAt ? { html: row.earlierHtml, readAt: row.earlierReadAt } : null,
    proposals: ZStoredProposalsSchema.parse(row.proposals ?? []),
    shot: row.shotWidth && row.shotHeight ? { width: row.shotWidth, height: row.shotHeight, boxes } : null,
  };
}

/** The page's picture (JPEG) and when the page was read, or null when it has none. */
export async function loadSetupPageShot(
  db: TDb | TTx,
  input: { userId: string; sessionId: string },
): Promise<{ image: Uint8Array; readAt: Date } | null> {
  const session = await getSetupSession(db, input);
  const row = await db.setupPage.findUnique({
    where: { sessionId: session.id },
    select: { shotImage: true, readAt: true },
  });
  return row?.shotImage ? { image: new Uint8Array(row.shotImage), readAt: row.readAt } : null;
}

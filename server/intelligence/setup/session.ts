import type { TDraftView, TSetupUIMessage } from "@/contracts/setup-ui-message";
import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import type { Prisma, SetupSession } from "../../generated/prisma/client";
import { parseDefinition, type TTrackerDefinition } from "../definition";
import { getTracker } from "../tracker-store";
import { toDraftView } from "./draft-view";
import { firstUserTexts, loadSetupMessages } from "./setup-messages";
import { titleFromMessage } from "./tracker-title";

/**
 * At most this many unfinished setups per person. Starting one more closes the oldest: a conversation
 * that never bound a target is deleted; one with a draft tracker is kept but marked abandoned (its
 * tracker's "Edit definition" reopens it), so no draft is lost.
 */
export const MAX_OPEN_SETUP_SESSIONS = 20;

export type TSetupState = {
  sessionId: string;
  status: string;
  messages: TSetupUIMessage[];
  /** The stored sample: { capability, input, label, results } (see TSetupSample). */
  sample: unknown | null;
  tracker: {
    id: string;
    status: string;
    decision: string;
    lockedVersion: number | null;
    scheduleMinutes: number;
  } | null;
  /** The unlocked draft (version lockedVersion + 1), if one is saved. */
  draft: { version: number; definition: TTrackerDefinition; view: TDraftView } | null;
};

/**
 * A new, empty setup conversation for the user. Beyond MAX_OPEN_SETUP_SESSIONS open ones, the oldest are
 * closed first; `closedSessions` says how many, so the page can say so.
 */
export async function createSetupSession(
  db: TDb,
  input: { userId: string },
): Promise<{ id: string; closedSessions: number }> {
  const stale = await db.setupSession.findMany({
    where: { userId: input.userId, status: "open" },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    skip: MAX_OPEN_SETUP_SESSIONS - 1,
    select: { id: true, trackerId: true },
  });
  if (stale.length > 0) {
    await db.$transaction([
      db.setupSession.deleteMany({ where: { id: { in: stale.filter((s) => !s.trackerId).map((s) => s.id) } } }),
      db.setupSession.updateMany({
        where: { id: { in: stale.filter((s) => s.trackerId).map((s) => s.id) } },
        data: { status: "abandoned" },
      }),
    ]);
  }
  const session = await db.setupSession.create({ data: { userId: input.userId } });
  return { id: session.id, closedSessions: stale.length };
}

/** The user's session; another user's is NOT_FOUND like a missing one. */
export async function getSetupSession(
  db: TDb | TTx,
  input: { userId: string; sessionId: string },
): Promise<SetupSession> {
  const session = await db.setupSession.findFirst({ where: { id: input.sessionId, userId: input.userId } });
  if (!session) throw new AppError("NOT_FOUND", "This setup conversation does not exist (any more).");
  return session;
}

/** Everything the setup page shows: transcript, sample, bound tracker and the draft. */
export async function getSetupState(db: TDb | TTx, input: { userId: string; sessionId: string }): Promise<TSetupState> {
  const session = await getSetupSession(db, input);
  let tracker: TSetupState["tracker"] = null;
  let draft: TSetupState["draft"] = null;
  if (session.trackerId) {
    const t = await getTracker(db, { userId: input.userId, trackerId: session.trackerId });
    tracker = {
      id: t.id,
      status: t.status,
      decision: t.decision,
      lockedVersion: t.lockedVersion,
      scheduleMinutes: t.scheduleMinutes,
    };
    const version = (t.lockedVersion ?? 0) + 1;
    const row = await db.trackerDefinition.findFirst({ where: { trackerId: t.id, version, lockedAt: null } });
    const parsed = row ? parseDefinition(row.definition) : null;
    if (row && parsed?.ok) {
      const view = toDraftView(parsed.definition, { capability: t.capability, input: t.capabilityInput });
      draft = { version, definition: parsed.definition, view };
    }
  }
  return {
    sessionId: session.id,
    status: session.status,
    messages: await loadSetupMessages(db, { sessionId: session.id }),
    sample: session.sample ?? null,
    tracker,
    draft,
  };
}

export async function saveSetupSample(
  db: TDb | TTx,
  input: { userId: string; sessionId: string; sample: unknown },
): Promise<void> {
  const session = await getSetupSession(db, input);
  await db.setupSession.update({
    where: { id: session.id },
    data: { sample: JSON.parse(JSON.stringify(input.sample ?? null)) as Prisma.InputJsonValue },
  });
}

export async function linkSetupTracker(
  db: TDb | TTx,
  input: { userId: string; sessionId: string; trackerId: string },
): Promise<void> {
  const session = await getSetupSession(db, input);
  await db.setupSession.update({ where: { id: session.id }, data: { trackerId: input.trackerId } });
}

/** Marks the conversation as used now (its updatedAt orders "most recent" and decides when a draft is stale). */
export async function touchSetupSession(db: TDb | TTx, input: { sessionId: string }): Promise<void> {
  await db.setupSession.update({ where: { id: input.sessionId }, data: { updatedAt: new Date() } });
}

export async function setSetupStatus(
  db: TDb | TTx,
  input: { userId: string; sessionId: string; status: "open" | "locked" | "abandoned" },
): Promise<void> {
  const session = await getSetupSession(db, input);
  await db.setupSession.update({ where: { id: session.id }, data: { status: input.status } });
}

/**
 * Deletes one of the person's conversations that never bound a page or place, with its messages (a conversation with a
 * tracker goes with its draft tracker, or is closed: see server/trackers discardUnfinishedSetup). Conditional on still
 * having no tracker, so a turn binding a page meanwhile wins and this answers CONFLICT.
 */
export async function deleteUnboundSetupSession(
  db: TDb | TTx,
  input: { userId: string; sessionId: string },
): Promise<void> {
  const { count } = await db.setupSession.deleteMany({
    where: { id: input.sessionId, userId: input.userId, trackerId: null },
  });
  if (count !== 1) throw new AppError("CONFLICT", "This setup changed meanwhile; reload and try again.");
}

/**
 * Deletes setup conversations that never bound a page or place and were not talked to since `untouchedSince`
 * (with their messages). Conversations with a tracker go with it (deleteStaleDraftTrackers, or never, once
 * locked). Returns how many went.
 */
export async function deleteStaleSetupSessions(db: TDb | TTx, input: { untouchedSince: Date }): Promise<number> {
  const { count } = await db.setupSession.deleteMany({
    where: { trackerId: null, updatedAt: { lte: input.untouchedSince } },
  });
  return count;
}

/** The user's unfinished setup conversations, newest first, so /trackers/new can offer to resume them. */
export async function listOpenSetupSessions(
  db: TDb | TTx,
  input: { userId: string; limit?: number },
): Promise<{ sessionId: string; title: string; updatedAt: Date }[]> {
  const rows = await db.setupSession.findMany({
    where: { userId: input.userId, status: "open" },
    orderBy: { updatedAt: "desc" },
    take: input.limit ?? 3,
  });
  const titles = await firstUserTexts(
    db,
    rows.map((r) => r.id),
  );
  return rows.flatMap((row) => {
    const text = titles.get(row.id);
    if (!text) return [];
    // Titled like the tracker it will make (tracker-title.ts); a message that was only an address shows as sent.
    const title = titleFromMessage(text) ?? (text.length > 120 ? `${text.slice(0, 119)}…` : text);
    return [{ sessionId: row.id, title, updatedAt: row.updatedAt }];
  });
}

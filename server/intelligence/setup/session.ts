import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import type { Prisma, SetupSession } from "../../generated/prisma/client";
import { parseDefinition, type TTrackerDefinition } from "../definition";
import { getTracker, saveDraftDefinition } from "../tracker-store";
import { toDraftView } from "./draft-view";
import { type TDraftView, type TSetupMessage, textMessage, ZSetupMessageSchema } from "./types";

export type TSetupState = {
  sessionId: string;
  status: string;
  messages: TSetupMessage[];
  sample: unknown | null;
  tracker: { id: string; status: string; decision: string; lockedVersion: number | null } | null;
  /** The unlocked draft (version lockedVersion + 1), if one is saved. */
  draft: { version: number; definition: TTrackerDefinition; view: TDraftView } | null;
};

/** A new, empty setup conversation for the user. */
export async function createSetupSession(db: TDb | TTx, input: { userId: string }): Promise<SetupSession> {
  return db.setupSession.create({ data: { userId: input.userId } });
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

export function readMessages(session: Pick<SetupSession, "messages">): TSetupMessage[] {
  const raw = Array.isArray(session.messages) ? session.messages : [];
  return raw.flatMap((m) => {
    const parsed = ZSetupMessageSchema.safeParse(m);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Everything the setup page shows: transcript, sample, bound tracker and the draft. */
export async function getSetupState(db: TDb | TTx, input: { userId: string; sessionId: string }): Promise<TSetupState> {
  const session = await getSetupSession(db, input);
  let tracker: TSetupState["tracker"] = null;
  let draft: TSetupState["draft"] = null;
  if (session.trackerId) {
    const t = await getTracker(db, { userId: input.userId, trackerId: session.trackerId });
    tracker = { id: t.id, status: t.status, decision: t.decision, lockedVersion: t.lockedVersion };
    const version = (t.lockedVersion ?? 0) + 1;
    const row = await db.trackerDefinition.findFirst({ where: { trackerId: t.id, version, lockedAt: null } });
    const parsed = row ? parseDefinition(row.definition) : null;
    if (row && parsed?.ok) draft = { version, definition: parsed.definition, view: toDraftView(parsed.definition) };
  }
  return {
    sessionId: session.id,
    status: session.status,
    messages: readMessages(session),
    sample: session.sample ?? null,
    tracker,
    draft,
  };
}

/** Appends messages to the transcript (read-modify-write; one turn runs at a time per session). */
export async function appendSetupMessages(
  db: TDb | TTx,
  input: { userId: string; sessionId: string; messages: TSetupMessage[] },
): Promise<void> {
  const session = await getSetupSession(db, input);
  const messages = [...readMessages(session), ...input.messages];
  await db.setupSession.update({
    where: { id: session.id },
    data: { messages: JSON.parse(JSON.stringify(messages)) as Prisma.InputJsonValue },
  });
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

export async function setSetupStatus(
  db: TDb | TTx,
  input: { userId: string; sessionId: string; status: "open" | "locked" | "abandoned" },
): Promise<void> {
  const session = await getSetupSession(db, input);
  await db.setupSession.update({ where: { id: session.id }, data: { status: input.status } });
}

/**
 * "Edit definition" on an existing tracker: reopens its setup conversation (or starts one — trackers
 * made outside the chat have none) with a draft of version N+1 that starts as a copy of version N.
 */
export async function openEditSession(db: TDb, input: { userId: string; trackerId: string }): Promise<SetupSession> {
  const tracker = await getTracker(db, input);
  if (!tracker.lockedVersion) {
    const existing = await db.setupSession.findFirst({ where: { trackerId: tracker.id, userId: input.userId } });
    if (existing) return existing;
    throw new AppError("PRECONDITION_FAILED", "This tracker has no locked definition to edit yet.");
  }
  const version = tracker.lockedVersion + 1;
  const hasDraft = await db.trackerDefinition.findFirst({ where: { trackerId: tracker.id, version, lockedAt: null } });
  if (!hasDraft) {
    const current = await db.trackerDefinition.findFirstOrThrow({
      where: { trackerId: tracker.id, version: tracker.lockedVersion },
    });
    await saveDraftDefinition(db, { userId: input.userId, trackerId: tracker.id, definition: current.definition });
  }
  let session = await db.setupSession.findFirst({ where: { trackerId: tracker.id, userId: input.userId } });
  const note = textMessage(
    "assistant",
    `Editing the definition of “${tracker.decision}”. Version ${tracker.lockedVersion} stays as it is; your changes become version ${version} when you lock them.`,
    "info",
  );
  if (!session) {
    session = await db.setupSession.create({
      data: { userId: input.userId, trackerId: tracker.id, status: "open", messages: [note] as Prisma.InputJsonValue },
    });
  } else if (session.status !== "open") {
    const messages = [...readMessages(session), note];
    session = await db.setupSession.update({
      where: { id: session.id },
      data: { status: "open", messages: JSON.parse(JSON.stringify(messages)) as Prisma.InputJsonValue },
    });
  }
  return session;
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
  return rows.flatMap((row) => {
    const first = readMessages(row).find((m) => m.role === "user");
    if (!first) return [];
    const text = first.parts.map((p) => p.text).join("");
    return [
      { sessionId: row.id, title: text.length > 120 ? `${text.slice(0, 119)}…` : text, updatedAt: row.updatedAt },
    ];
  });
}

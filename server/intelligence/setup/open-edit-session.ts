import { textMessage } from "@/contracts/setup-ui-message";
import type { TDb } from "../../db";
import { AppError } from "../../errors";
import { getTracker, saveDraftDefinition } from "../tracker-store";
import { appendSetupMessages } from "./setup-messages";

/**
 * "Edit definition" on an existing tracker: reopens its setup conversation (or starts one — trackers
 * made outside the chat have none) with a draft of version N+1 that starts as a copy of version N.
 * A draft tracker reopens the conversation it was set up in (also one closed as abandoned).
 */
export async function openEditSession(db: TDb, input: { userId: string; trackerId: string }): Promise<{ id: string }> {
  const tracker = await getTracker(db, input);
  const existing = await db.setupSession.findFirst({ where: { trackerId: tracker.id, userId: input.userId } });
  if (!tracker.lockedVersion) {
    if (!existing) throw new AppError("PRECONDITION_FAILED", "This tracker has no locked definition to edit yet.");
    if (existing.status !== "open") {
      await db.setupSession.update({ where: { id: existing.id }, data: { status: "open" } });
    }
    return { id: existing.id };
  }
  const version = tracker.lockedVersion + 1;
  const hasDraft = await db.trackerDefinition.findFirst({ where: { trackerId: tracker.id, version, lockedAt: null } });
  if (!hasDraft) {
    const current = await db.trackerDefinition.findFirstOrThrow({
      where: { trackerId: tracker.id, version: tracker.lockedVersion },
    });
    await saveDraftDefinition(db, { userId: input.userId, trackerId: tracker.id, definition: current.definition });
  }
  if (existing?.status === "open") return { id: existing.id };
  const session = existing
    ? await db.setupSession.update({ where: { id: existing.id }, data: { status: "open" } })
    : await db.setupSession.create({ data: { userId: input.userId, trackerId: tracker.id, status: "open" } });
  const note = textMessage(
    "assistant",
    `Editing the definition of “${tracker.decision}”. Version ${tracker.lockedVersion} stays as it is; your changes become version ${version} when you lock them.`,
    { kind: "info" },
  );
  await appendSetupMessages(db, { sessionId: session.id, messages: [note] });
  return { id: session.id };
}

import type { TDb } from "../../db";
import { AppError } from "../../errors";
import { lockDefinition, saveDraftDefinition } from "../tracker-store";
import { getSetupSession, setSetupStatus } from "./session";

/** A direct edit from the draft card: validated and saved as the tracker's draft (never locked here). */
export async function saveSetupDraft(
  db: TDb,
  input: { userId: string; sessionId: string; definition: unknown },
): Promise<{ version: number }> {
  const session = await getSetupSession(db, input);
  if (!session.trackerId) throw new AppError("PRECONDITION_FAILED", "Bind a page or place before editing the draft.");
  const row = await saveDraftDefinition(db, {
    userId: input.userId,
    trackerId: session.trackerId,
    definition: input.definition,
  });
  return { version: row.version };
}

/** Locks the session's draft (version N+1), activates the tracker and closes the conversation. */
export async function lockSetup(
  db: TDb,
  input: { userId: string; sessionId: string },
): Promise<{ trackerId: string; version: number }> {
  const session = await getSetupSession(db, input);
  if (!session.trackerId) throw new AppError("PRECONDITION_FAILED", "There is no draft to lock yet.");
  const { definition } = await lockDefinition(db, { userId: input.userId, trackerId: session.trackerId });
  await setSetupStatus(db, { ...input, status: "locked" });
  return { trackerId: session.trackerId, version: definition.version };
}

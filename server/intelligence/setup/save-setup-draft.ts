import type { TDraftView } from "@/contracts/setup-ui-message";
import type { TDb } from "../../db";
import { AppError } from "../../errors";
import { getTracker, lockDefinition, saveDraftDefinition } from "../tracker-store";
import { toDraftView } from "./draft-view";
import { getSetupSession, setSetupStatus, touchSetupSession } from "./session";

export type TSavedSetupDraft = {
  version: number;
  definition: Record<string, unknown>;
  view: TDraftView;
  /** The bound tracker's schedule, shown on the card beside the definition. */
  scheduleMinutes: number;
  /** The draft tracker (context files attach to it while drafting). */
  trackerId: string;
};

/**
 * A draft saved from the chat or the card: validated and stored as the tracker's draft (never locked
 * here). Returns what the card shows, so it updates without reloading the conversation.
 */
export async function saveSetupDraft(
  db: TDb,
  input: { userId: string; sessionId: string; definition: unknown },
): Promise<TSavedSetupDraft> {
  const session = await getSetupSession(db, input);
  if (!session.trackerId) throw new AppError("PRECONDITION_FAILED", "Bind a page or place before editing the draft.");
  const row = await saveDraftDefinition(db, {
    userId: input.userId,
    trackerId: session.trackerId,
    definition: input.definition,
  });
  // A card edit touches the conversation like a message does, so the draft is not "untouched" (stale-draft discard).
  await touchSetupSession(db, { sessionId: session.id });
  const definition = row.definition as Record<string, unknown>;
  const tracker = await getTracker(db, { userId: input.userId, trackerId: session.trackerId });
  return {
    version: row.version,
    definition,
    view: toDraftView(definition, { capability: tracker.capability, input: tracker.capabilityInput }),
    scheduleMinutes: tracker.scheduleMinutes,
    trackerId: tracker.id,
  };
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

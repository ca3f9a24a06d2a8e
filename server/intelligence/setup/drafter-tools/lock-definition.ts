import { tool } from "ai";
import { toPublicError } from "../../../errors";
import { lockSetup } from "../save-setup-draft";
import { ZNoInputSchema } from "../schema";
import type { TDrafterTurn } from "./drafter-turn";

/** Locks the draft as the next version and activates the tracker — only after the person approves. */
export function lockDefinitionTool(turn: TDrafterTurn) {
  return tool({
    description: "Lock the current draft as the next version and activate the tracker. Only after the person approves.",
    inputSchema: ZNoInputSchema,
    execute: async () => {
      try {
        const result = await lockSetup(turn.db, { userId: turn.userId, sessionId: turn.sessionId });
        turn.locked = true;
        turn.reply.locked(result.trackerId, result.version);
        return { ok: true, version: result.version };
      } catch (error) {
        return { ok: false, message: toPublicError(error).message };
      }
    },
  });
}

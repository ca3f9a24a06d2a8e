import type { TLanguageModel } from "../../ai";
import type { TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { describeError, toPublicError } from "../../errors";
import type { TLogger } from "../../logger";
import { runRulesTurn } from "./rules-turn";
import { runDrafterAgent } from "./run-drafter-agent";
import { getSetupState } from "./session";
import type { TSetupReply } from "./setup-reply";

/**
 * The reply to one message (already stored): the drafter agent when a model is configured, the
 * deterministic rules otherwise. Expected problems become chat messages; anything unexpected is logged
 * and reported as an error part, so the conversation always stays usable.
 */
export async function runSetupTurn(
  db: TDb,
  input: {
    userId: string;
    sessionId: string;
    text: string;
    config: TCapabilityConfig;
    reply: TSetupReply;
    /** null = rules mode. */
    model: TLanguageModel | null;
    log?: TLogger;
  },
): Promise<void> {
  const { userId, sessionId, reply } = input;
  try {
    const state = await getSetupState(db, { userId, sessionId });
    if (state.status === "locked") {
      reply.say("This tracker's definition is locked. Use “Edit definition” on the tracker page to change it.", "info");
    } else if (input.model) {
      await runDrafterAgent(db, { ...input, model: input.model, state });
    } else {
      await runRulesTurn(db, { ...input, state });
    }
  } catch (error) {
    input.log?.error("setup turn failed", { sessionId, error: describeError(error) });
    reply.draftDiscarded();
    const { message } = toPublicError(error);
    reply.error(`That did not work: ${message} The conversation is still open — you can try again.`);
  }
}

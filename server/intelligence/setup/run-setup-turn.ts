import { meterModel, type TLanguageModel, type TModelSpend } from "../../ai";
import type { TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { describeError, toPublicError } from "../../errors";
import type { TLogger } from "../../logger";
import { budgetSpentMessage, recordModelUsage, spentModelBudget } from "../../usage";
import { runRulesTurn } from "./rules-turn";
import { runDrafterAgent } from "./run-drafter-agent";
import { getSetupSession, getSetupState } from "./session";
import type { TSetupReply } from "./setup-reply";

/**
 * The reply to one message (already stored): the drafter agent when a model is configured, the
 * deterministic rules otherwise. Expected problems become chat messages; anything unexpected is logged
 * and reported as an error part, so the conversation always stays usable.
 * docs/design.md §9: with the person's monthly token budget spent, the reply says so and the rules answer instead (no
 * model call); otherwise the drafter's calls and tokens go to the usage ledger, against the bound tracker.
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
      const spent = await spentModelBudget(db, { userId });
      if (spent) {
        reply.say(`${budgetSpentMessage(spent)} Until then I answer with the built-in rules.`);
        await runRulesTurn(db, { ...input, state });
      } else {
        const metered = meterModel(input.model);
        try {
          await runDrafterAgent(db, { ...input, model: metered.model, state });
        } finally {
          await recordDrafterUsage(db, { userId, sessionId, spend: metered.spent(), log: input.log });
        }
      }
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

/** The turn's model use, against the tracker the conversation is bound to (it may have been bound this turn). */
async function recordDrafterUsage(
  db: TDb,
  input: { userId: string; sessionId: string; spend: TModelSpend; log?: TLogger },
): Promise<void> {
  if (input.spend.modelCalls === 0) return;
  try {
    const session = await getSetupSession(db, input);
    await recordModelUsage(db, {
      userId: input.userId,
      trackerId: session.trackerId,
      kind: "setup",
      spend: input.spend,
    });
  } catch (error) {
    // The reply matters more than the ledger line; say so in the log rather than fail the turn.
    input.log?.error("setup model usage could not be recorded", {
      sessionId: input.sessionId,
      error: describeError(error),
    });
  }
}

import { tool } from "ai";
import { wrapUntrusted } from "../../../ai";
import { bindAndSample, type TSetupSample } from "../bind-and-sample";
import { decisionWantsSet } from "../decision-wants-set";
import { SAMPLE_MAX_CHARS } from "../prompt";
import { ZNoInputSchema } from "../schema";
import { agentSampleJson } from "../set-sample";
import type { TDrafterTurn } from "./drafter-turn";

/** Reads the bound target once (one real capability call), so the definition is grounded in real data. */
export function fetchSampleTool(turn: TDrafterTurn) {
  return tool({
    description: "Read the bound target once (one real capability call) so the definition is grounded in real data.",
    inputSchema: ZNoInputSchema,
    execute: async () => {
      if (turn.bound && turn.current) return { ok: true, sample: sampleForModel(turn, turn.current) };
      const pending = turn.pending;
      if (!pending) return { ok: false, message: "call bindCapability first" };
      turn.reply.status(`Reading ${pending.label}…`);
      const result = await bindAndSample(turn.db, {
        userId: turn.userId,
        sessionId: turn.sessionId,
        decision: turn.decision,
        title: pending.title,
        capability: pending.capability,
        capabilityInput: pending.capabilityInput,
        label: pending.label,
        config: turn.config,
        // The agent judged whether the decision is about a set; without its word, the decision's own words decide.
        findListing: pending.watch ? pending.watch === "set" : decisionWantsSet(turn.decision),
      });
      if (!result.ok) {
        // Shown by code, not left to the model, so the person always sees why.
        turn.reply.error(result.message);
        turn.pending = null;
        return { ok: false, message: result.message, next: "ask the person for another address; do not retry" };
      }
      turn.bound = { label: result.sample.label };
      turn.current = result.sample;
      turn.reply.sample(result.sample.label, result.sample.results.document ?? result.sample.results, result.trackerId);
      // A set was asked for on a page without a listing: the single-page sample stands, and the agent says why.
      const listing = result.sample.listing;
      return {
        ok: true,
        sample: sampleForModel(turn, result.sample),
        ...(listing?.watched === false ? { note: listing.why } : {}),
      };
    },
  });
}

function sampleForModel(turn: TDrafterTurn, sample: TSetupSample): string {
  return wrapUntrusted(agentSampleJson(sample, turn.decision), { source: sample.label, maxChars: SAMPLE_MAX_CHARS });
}

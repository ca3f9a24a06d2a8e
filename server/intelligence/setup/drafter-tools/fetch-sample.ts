import { tool } from "ai";
import { wrapUntrusted } from "../../../ai";
import { bindAndSample, type TSetupSample } from "../bind-and-sample";
import { SAMPLE_MAX_CHARS, sampleJsonForModel } from "../prompt";
import { ZNoInputSchema } from "../schema";
import type { TDrafterTurn } from "./drafter-turn";

/** Reads the bound target once (one real capability call), so the definition is grounded in real data. */
export function fetchSampleTool(turn: TDrafterTurn) {
  return tool({
    description: "Read the bound target once (one real capability call) so the definition is grounded in real data.",
    inputSchema: ZNoInputSchema,
    execute: async () => {
      if (turn.bound && turn.current) return { ok: true, sample: sampleForModel(turn.current) };
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
      return { ok: true, sample: sampleForModel(result.sample) };
    },
  });
}

function sampleForModel(sample: TSetupSample): string {
  return wrapUntrusted(sampleJsonForModel(sample), { source: sample.label, maxChars: SAMPLE_MAX_CHARS });
}

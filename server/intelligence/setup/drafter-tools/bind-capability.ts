import { tool } from "ai";
import { getCapability } from "../../../capabilities";
import { ZBindCapabilityInputSchema } from "../schema";
import type { TDrafterTurn } from "./drafter-turn";

/** The agent chooses what to watch: a capability and the one argument that names its target (its descriptor's). */
export function bindCapabilityTool(turn: TDrafterTurn) {
  return tool({
    description: "Choose what to watch: the capability and its target, exactly as the person gave it.",
    inputSchema: ZBindCapabilityInputSchema,
    execute: async (args) => {
      if (turn.bound)
        return { ok: false, message: `Already bound to ${turn.bound.label}. Start a new tracker to watch another.` };
      const capability = getCapability(args.capability);
      if (!capability) return { ok: false, message: `unknown capability ${args.capability}` };
      const value = (args as Record<string, unknown>)[capability.target.arg];
      if (typeof value !== "string" || !value.trim())
        return { ok: false, message: `${capability.name} needs a ${capability.target.arg}` };
      const capabilityInput = { [capability.target.arg]: value.trim() };
      turn.pending = {
        capability: capability.name,
        capabilityInput,
        label: capability.describeTarget(capabilityInput),
        title: args.title,
        watch: args.watch,
      };
      return { ok: true, bound: turn.pending.label, next: "call fetchSample" };
    },
  });
}

import { listCapabilities } from "../../capabilities";

export type TSetupTarget = { capability: string; input: Record<string, string>; label: string };

/**
 * Deterministic binding (rules mode, and a hint for the agent): the first capability, in registry order, whose
 * descriptor spots its target in the message (a web address before a place id). null → ask.
 */
export function findTarget(text: string): TSetupTarget | null {
  for (const capability of listCapabilities()) {
    const found = capability.target.find?.(text);
    if (!found) continue;
    const input = { [capability.target.arg]: found };
    return { capability: capability.name, input, label: capability.describeTarget(input) };
  }
  return null;
}

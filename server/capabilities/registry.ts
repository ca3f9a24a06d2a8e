import { AppError } from "../errors";
import { failed } from "./envelope";
import { mapsPlace } from "./maps-place";
import type { TCapability, TCapabilityContext, TCapabilityEnvelope } from "./types";
import { webScrape } from "./web-scrape";

const REGISTRY: ReadonlyMap<string, TCapability> = new Map<string, TCapability>(
  [webScrape, mapsPlace].map((c) => [c.name, c as unknown as TCapability]),
);

export function getCapability(name: string): TCapability | undefined {
  return REGISTRY.get(name);
}

export function listCapabilities(): TCapability[] {
  return [...REGISTRY.values()];
}

/** Zod issues as one readable sentence ("url: Enter a full web address…"). */
function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message)).join("; ");
}

/**
 * For binding a tracker: validates input for a verb and returns the parsed value, or throws an
 * AppError(BAD_REQUEST) whose message the user can act on.
 */
export function parseCapabilityInput(name: string, rawInput: unknown): unknown {
  const capability = getCapability(name);
  if (!capability) {
    const known = listCapabilities()
      .map((c) => c.name)
      .join(", ");
    throw new AppError("BAD_REQUEST", `Unknown capability "${name}". Available: ${known}.`);
  }
  const parsed = capability.inputSchema.safeParse(rawInput);
  if (!parsed.success)
    throw new AppError("BAD_REQUEST", `Invalid input for ${name}: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

/**
 * The one entry point the hot loop uses: look up, validate, execute. Always resolves to an
 * envelope for expected failures (unknown verb, bad input, upstream problems); only ledger
 * failures and genuine bugs in callers' hooks reject.
 */
export async function executeCapability(
  name: string,
  rawInput: unknown,
  ctx: TCapabilityContext,
): Promise<TCapabilityEnvelope<unknown>> {
  const capability = getCapability(name);
  if (!capability) {
    const known = listCapabilities()
      .map((c) => c.name)
      .join(", ");
    return failed("UNKNOWN_CAPABILITY", `Unknown capability "${name}". Available: ${known}.`);
  }
  const parsed = capability.inputSchema.safeParse(rawInput);
  if (!parsed.success) {
    return failed("INVALID_INPUT", `Invalid input for ${name}: ${describeIssues(parsed.error.issues)}`, {
      details: { issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
    });
  }
  return capability.execute(parsed.data, ctx);
}

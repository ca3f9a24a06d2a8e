import { AppError } from "../errors";
import { hostOfUrl, type THostRefusal } from "../lib/host-gate";
import { getHostGate } from "../lib/host-gate-instance";
import type { TCapabilityConfig } from "./config";
import { failed } from "./envelope";
import { feedItems } from "./feed-items";
import { mapsPlace } from "./maps-place";
import { mapsSearch } from "./maps-search";
import type { TCapability, TCapabilityContext, TCapabilityEnvelope } from "./types";
import { webPdf } from "./web-pdf";
import { webScrape } from "./web-scrape";

const REGISTRY: ReadonlyMap<string, TCapability> = new Map<string, TCapability>(
  [webScrape, mapsPlace, webPdf, feedItems, mapsSearch].map((c) => [c.name, c as unknown as TCapability]),
);

export function getCapability(name: string): TCapability | undefined {
  return REGISTRY.get(name);
}

export function listCapabilities(): TCapability[] {
  return [...REGISTRY.values()];
}

/**
 * The capability that reads what a web address answered when the one asked refused its media type (a PDF where a page
 * was expected): one that takes the same target argument and lists that type in its descriptor's `contentTypes`.
 */
export function routeByContentType(
  from: string,
  input: unknown,
  contentType: string,
): { capability: string; input: unknown } | null {
  const source = getCapability(from);
  const arg = source?.target.arg;
  const value = arg ? (input as Record<string, unknown> | null)?.[arg] : undefined;
  if (!arg || typeof value !== "string") return null;
  const to = listCapabilities().find(
    (c) => c !== source && c.target.arg === arg && c.contentTypes?.includes(contentType),
  );
  if (!to) return null;
  const parsed = to.inputSchema.safeParse({ [arg]: value });
  return parsed.success ? { capability: to.name, input: parsed.data } : null;
}

/**
 * A capability's own refusal at the door (its descriptor's `checkTarget`): run when a tracker is created or bound in
 * setup, before anything is stored. Capabilities without one (an API keyed by id) accept any valid input.
 */
export async function assertPublicTarget(capability: string, input: unknown, config: TCapabilityConfig): Promise<void> {
  await getCapability(capability)?.checkTarget?.(input, config);
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
  const host = capability.hostOf?.(parsed.data, ctx.config) ?? null;
  if (!host) return capability.execute(parsed.data, ctx);
  return executeAtHost(host, () => capability.execute(parsed.data, ctx), ctx.signal);
}

/**
 * Politeness per host (docs/scheduling.md): the call waits for the host's turn (its limit on calls in flight and its
 * least gap), or is refused without a request when the host asked us to wait or stayed busy too long — a retryable
 * RATE_LIMITED, so the hot loop's backoff retries the tracker and the lane moves on. A 429/503 with Retry-After holds
 * the host that answered it for every later call.
 */
async function executeAtHost(
  host: string,
  execute: () => Promise<TCapabilityEnvelope<unknown>>,
  signal: AbortSignal | undefined,
): Promise<TCapabilityEnvelope<unknown>> {
  const gate = getHostGate();
  const pass = await gate.acquire(host, signal);
  if (!pass.ok) return refusedByHostGate(host, pass);
  let envelope: TCapabilityEnvelope<unknown>;
  try {
    envelope = await execute();
  } finally {
    pass.release();
  }
  const details = envelope.error?.details;
  const retryAfterMs = details?.retryAfterMs;
  if (typeof retryAfterMs === "number" && (details?.httpStatus === 429 || details?.httpStatus === 503)) {
    const answered = typeof details.url === "string" ? hostOfUrl(details.url) : null;
    gate.hold(answered ?? host, retryAfterMs);
  }
  return envelope;
}

function refusedByHostGate(host: string, refusal: THostRefusal): TCapabilityEnvelope<unknown> {
  if (refusal.reason === "aborted")
    return failed("ABORTED", `The call to ${host} was cancelled before it was sent.`, { retryable: true });
  if (refusal.reason === "held") {
    const retryAt = new Date(refusal.until).toISOString();
    return failed(
      "RATE_LIMITED",
      `${host} asked us to wait (429/503 with Retry-After): it may be asked again after ${retryAt}. No request was sent; it will be retried.`,
      { retryable: true, details: { host, retryAt } },
    );
  }
  return failed(
    "RATE_LIMITED",
    `${host} is busy with other trackers' requests (${refusal.inFlight} in flight, waited ${Math.round(refusal.waitedMs / 1000)} s). No request was sent; it will be retried.`,
    { retryable: true, details: { host, busy: true } },
  );
}

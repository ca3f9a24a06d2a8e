import { createHash } from "node:crypto";
import { canonicalJson } from "../lib/canonical-json";
import type { TCapabilityContext, TCapabilityEnvelope, TUsageInfo } from "./types";

/** Deterministic per (verb, input): a redelivered run re-executing the same call gets the same key. */
export function defaultCallKey(capability: string, input: unknown): string {
  return `${capability}:${createHash("sha256").update(canonicalJson(input)).digest("hex").slice(0, 32)}`;
}

/** Records one real upstream call, if the caller gave us a ledger and the network was reached. */
export async function recordUsage(
  ctx: TCapabilityContext,
  capability: string,
  input: unknown,
  envelope: TCapabilityEnvelope<unknown>,
  stats: { requests: number; bytes: number; httpStatus?: number },
  startedAt: Date,
): Promise<void> {
  if (!ctx.ledger || stats.requests === 0) return;
  const info: TUsageInfo = {
    capability,
    input,
    status: envelope.status,
    requests: stats.requests,
    bytes: stats.bytes,
    durationMs: Date.now() - startedAt.getTime(),
    startedAt,
  };
  if (envelope.error) info.errorCode = envelope.error.code;
  if (stats.httpStatus !== undefined) info.httpStatus = stats.httpStatus;
  await ctx.ledger.record(ctx.callKey ?? defaultCallKey(capability, input), info);
}

/** In-memory ledger for tests and the benchmark: same (callKey) twice is recorded once, like the DB table. */
export function createMemoryLedger(): {
  record: (callKey: string, info: TUsageInfo) => void;
  entries: Map<string, TUsageInfo>;
  calls: number;
} {
  const ledger = {
    entries: new Map<string, TUsageInfo>(),
    calls: 0,
    record(callKey: string, info: TUsageInfo) {
      ledger.calls++;
      if (!ledger.entries.has(callKey)) ledger.entries.set(callKey, info);
    },
  };
  return ledger;
}

import type { TCapabilityEnvelope, TCapabilityError, TCapabilityErrorCode } from "./types";

export function completed<T>(results: T): TCapabilityEnvelope<T> {
  return { status: "completed", results };
}

export function failed<T = never>(
  code: TCapabilityErrorCode,
  message: string,
  options: { retryable?: boolean; details?: Record<string, unknown> } = {},
): TCapabilityEnvelope<T> {
  const error: TCapabilityError = { code, message, retryable: options.retryable ?? false };
  if (options.details) error.details = options.details;
  return { status: "failed", error };
}

/**
 * An expected failure raised deep inside a verb (fetch, parsing) and turned into a failed
 * envelope at the verb boundary — throwing keeps the plumbing simple, the boundary keeps the contract.
 */
export class CapabilityFailure extends Error {
  override name = "CapabilityFailure";
  constructor(
    readonly code: TCapabilityErrorCode,
    message: string,
    readonly retryable = false,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  toEnvelope<T>(): TCapabilityEnvelope<T> {
    return failed<T>(this.code, this.message, { retryable: this.retryable, details: this.details });
  }
}

/**
 * The envelope a verb ends with when its work threw: an expected failure as itself, anything else as INTERNAL,
 * naming what was being read ("Reading https://… failed unexpectedly: …").
 */
export function failedFrom<T>(err: unknown, reading: string): TCapabilityEnvelope<T> {
  if (err instanceof CapabilityFailure) return err.toEnvelope<T>();
  return failed<T>(
    "INTERNAL",
    `Reading ${reading} failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`,
  );
}

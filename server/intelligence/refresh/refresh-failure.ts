import { isAppError } from "../../errors";

/** An expected failure of a refresh step: recorded on the run with its code, never thrown to the caller. */
export class RefreshFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    /** What the host said about waiting (docs/scheduling.md "Politeness per host"). */
    readonly wait: THostWait | null = null,
  ) {
    super(message);
  }
}

/**
 * `deferred`: the host's gate sent no request (held until `until`, or busy: `until` null) — the run is deferred, not
 * failed. `answered`: the host itself answered 429/503 with Retry-After — a failure whose next try is not before `until`.
 */
export type THostWait = { kind: "deferred"; until: Date | null } | { kind: "answered"; until: Date };

/** The host's wait a capability error's details carry (server/capabilities/registry.ts, web.scrape's fetch). */
export function hostWaitOf(details: Record<string, unknown> | undefined, now: Date): THostWait | null {
  if (!details) return null;
  if (typeof details.host === "string" && (typeof details.retryAt === "string" || details.busy === true)) {
    const until = typeof details.retryAt === "string" ? new Date(details.retryAt) : null;
    return { kind: "deferred", until: until && Number.isFinite(until.getTime()) ? until : null };
  }
  const status = details.httpStatus;
  if (typeof details.retryAfterMs === "number" && (status === 429 || status === 503))
    return { kind: "answered", until: new Date(now.getTime() + details.retryAfterMs) };
  return null;
}

export function describeFailure(error: unknown): { code: string; message: string; retryable: boolean } {
  if (error instanceof RefreshFailure) return { code: error.code, message: error.message, retryable: error.retryable };
  if (isAppError(error)) return { code: error.code, message: error.message, retryable: error.code !== "BAD_REQUEST" };
  // Internals stay in the log; the run and the UI get a message that is safe to show.
  return { code: "INTERNAL", message: "Something went wrong while refreshing; it has been logged.", retryable: true };
}

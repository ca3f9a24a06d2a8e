import { isAppError } from "../../errors";

/** An expected failure of a refresh step: recorded on the run with its code, never thrown to the caller. */
export class RefreshFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export function describeFailure(error: unknown): { code: string; message: string; retryable: boolean } {
  if (error instanceof RefreshFailure) return { code: error.code, message: error.message, retryable: error.retryable };
  if (isAppError(error)) return { code: error.code, message: error.message, retryable: error.code !== "BAD_REQUEST" };
  // Internals stay in the log; the run and the UI get a message that is safe to show.
  return { code: "INTERNAL", message: "Something went wrong while refreshing; it has been logged.", retryable: true };
}

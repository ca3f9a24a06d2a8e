/** An error that never reached the server's answer (no tRPC error data): the stream or the network gave way. */
export const CONNECTION_LOST = "Connection lost. If the refresh started, its run shows in the runs log.";

/**
 * What "Refresh now" shows when the refresh could not start or its stream broke. A rate limit (docs/design.md §9)
 * reads "Too many refreshes — try again in 12 s", from the retry time the server sends in the error's data; an error
 * the server did not send (the connection gave way) says so; anything else is "failed: <the server's message>".
 */
export function refreshErrorMessage(error: {
  message: string;
  data?: { code?: string; details?: Record<string, unknown> | undefined } | null;
}): string {
  const retryAfter = error.data?.details?.retryAfterSeconds;
  if (error.data?.code === "TOO_MANY_REQUESTS" && typeof retryAfter === "number" && retryAfter > 0) {
    return `Too many refreshes — try again in ${Math.ceil(retryAfter)} s`;
  }
  if (!error.data) return CONNECTION_LOST;
  return `failed: ${error.message}`;
}

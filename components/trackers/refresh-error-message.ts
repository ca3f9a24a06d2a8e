/**
 * What "Refresh now" shows when the refresh could not start. A rate limit (docs/design.md §9) reads
 * "Too many refreshes — try again in 12 s", from the retry time the server sends in the error's data; anything
 * else is "failed: <the server's message>".
 */
export function refreshErrorMessage(error: {
  message: string;
  data?: { code?: string; details?: Record<string, unknown> | undefined } | null;
}): string {
  const retryAfter = error.data?.details?.retryAfterSeconds;
  if (error.data?.code === "TOO_MANY_REQUESTS" && typeof retryAfter === "number" && retryAfter > 0) {
    return `Too many refreshes — try again in ${Math.ceil(retryAfter)} s`;
  }
  return `failed: ${error.message}`;
}

/**
 * The longest a host's Retry-After is believed: days ahead is a misconfiguration or a block, and the tracker's own
 * failure backoff (up to 6 h) handles a host that keeps refusing; holding every tracker on it longer gains nothing.
 */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;

/**
 * A Retry-After header (RFC 9110 §10.2.3: delay-seconds or an HTTP date) as ms from `now`, capped at
 * MAX_RETRY_AFTER_MS; undefined for junk, a missing header, or a time already past.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    // Only the date forms HTTP allows (they all name a weekday or month), not whatever Date.parse guesses from.
    if (!/^[A-Za-z]{3},? /.test(text) && !/^[A-Za-z]+day, /.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  if (!Number.isFinite(ms) || ms <= 0) return undefined;
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

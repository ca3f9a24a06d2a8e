const MINUTE = 60_000;
const MAX_BACKOFF = 6 * 60 * MINUTE;

/**
 * When to try again after the n-th consecutive failure: 1, 2, 4, 8… minutes, never later than the
 * tracker's own schedule would (a daily tracker does not wait longer than a day) nor than 6 hours.
 */
export function nextRunAfterFailure(now: Date, consecutiveFailures: number, scheduleMinutes: number): Date {
  const exponential = MINUTE * 2 ** Math.max(0, Math.min(consecutiveFailures - 1, 20));
  const delay = Math.min(exponential, scheduleMinutes * MINUTE, MAX_BACKOFF);
  return new Date(now.getTime() + delay);
}

/** When to refresh next after a successful run. */
export function nextRunAfterSuccess(now: Date, scheduleMinutes: number): Date {
  return new Date(now.getTime() + scheduleMinutes * MINUTE);
}

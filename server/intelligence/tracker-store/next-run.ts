import { createHash } from "node:crypto";
import { LruMap } from "../../lib/lru-map";

/**
 * The ONE computation of a tracker's next run time: schedule or failure backoff, plus a stable
 * per-tracker jitter. Every writer of Tracker.nextRunAt after a run or a schedule change uses it, and the
 * refresh writes its result once, in the run's final transaction (no second pass adjusts it).
 */

const MINUTE = 60_000;
const MAX_BACKOFF_MS = 6 * 60 * MINUTE;
/** At most this share of a tracker's schedule is added as jitter, and never more than this many ms. */
const JITTER_SHARE = 0.1;
const JITTER_MAX_MS = 5 * MINUTE;

/**
 * A stable per-tracker offset (0 … 10% of its schedule, ≤ 5 min). After an outage or restart every
 * overdue tracker runs in the same tick; adding a different offset to each one's next run spreads
 * them over the following interval instead of keeping them in lock-step forever. Deterministic (a hash
 * of the id), so tests and reruns see the same schedule.
 */
export function jitterMs(trackerId: string, scheduleMinutes: number): number {
  const span = Math.min(scheduleMinutes * MINUTE * JITTER_SHARE, JITTER_MAX_MS);
  return Math.floor(jitterUnit(trackerId) * span);
}

/** Each tracker's hash as a share in [0, 1], kept for the trackers seen lately (every refresh asks for it). */
const UNITS = new LruMap<string, { unit: number }>(10_000);

function jitterUnit(trackerId: string): number {
  return UNITS.getOrSet(trackerId, () => ({
    unit: createHash("sha256").update(trackerId).digest().readUInt32BE(0) / 0xffffffff,
  })).unit;
}

/**
 * How long to wait after the n-th consecutive failure: 1, 2, 4, 8… minutes, never longer than the
 * tracker's own schedule (a daily tracker does not wait longer than a day) nor than 6 hours.
 */
export function backoffMs(consecutiveFailures: number, scheduleMinutes: number): number {
  const exponential = MINUTE * 2 ** Math.max(0, Math.min(consecutiveFailures - 1, 20));
  return Math.min(exponential, scheduleMinutes * MINUTE, MAX_BACKOFF_MS);
}

/**
 * When the tracker should run next, counted from `after` (the end of its last run): its schedule, or
 * the backoff while `consecutiveFailures` > 0, plus its jitter.
 */
export function computeNextRunAt(input: {
  trackerId: string;
  scheduleMinutes: number;
  after: Date;
  consecutiveFailures: number;
  /** The host asked not to be asked before this (Retry-After): the run is never due earlier. */
  notBefore?: Date | null | undefined;
}): Date {
  const wait =
    input.consecutiveFailures > 0
      ? backoffMs(input.consecutiveFailures, input.scheduleMinutes)
      : input.scheduleMinutes * MINUTE;
  const at = input.after.getTime() + wait + jitterMs(input.trackerId, input.scheduleMinutes);
  return new Date(Math.max(at, input.notBefore ? retryAfterHold(input.trackerId, input.notBefore) : 0));
}

/** Longest spread of the trackers that waited for one host (docs/scheduling.md "Politeness per host"). */
const HOLD_SPREAD_MS = MINUTE;

/**
 * When a tracker deferred by its host's hold (or a busy host: `until` = now) is due again: the hold's end plus a
 * stable per-tracker offset of up to a minute, so the trackers that waited for one host do not all ask it again at
 * the same instant.
 */
export function retryAfterHold(trackerId: string, until: Date): number {
  return until.getTime() + Math.floor(jitterUnit(trackerId) * HOLD_SPREAD_MS);
}

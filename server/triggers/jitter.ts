import { createHash } from "node:crypto";

/** At most this share of a tracker's schedule is added as jitter, and never more than this many ms. */
const JITTER_SHARE = 0.1;
const JITTER_MAX_MS = 5 * 60_000;

/**
 * A stable per-tracker offset (0 … 10% of its schedule, ≤ 5 min). After an outage or restart every
 * overdue tracker runs in the same tick; adding a different offset to each one's next run spreads
 * them over the following interval instead of keeping them in lock-step forever. Deterministic (a hash
 * of the id), so tests and reruns see the same schedule.
 */
export function jitterMs(trackerId: string, scheduleMinutes: number): number {
  const span = Math.min(scheduleMinutes * 60_000 * JITTER_SHARE, JITTER_MAX_MS);
  const unit = createHash("sha256").update(trackerId).digest().readUInt32BE(0) / 0xffffffff;
  return Math.floor(unit * span);
}

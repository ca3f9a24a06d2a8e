import type { TDb } from "../../db";
import type { TEnhanceOutcome } from "../../enhancement/enhancement-manager";
import { logger } from "../../logger";
import { enhanceInBackground } from "./enhance-in-background";

export type TBackgroundOptions = {
  /** The clock each run reads when it starts, and each of its model calls when made (tests inject one). */
  now?: () => Date;
  /** Sees each person's outcome (tests, logs). */
  onEnhanced?: (userId: string, outcome: TEnhanceOutcome) => void;
};

type TEntry = { db: TDb; opts: TBackgroundOptions };
type TQueue = { waiting: Map<string, TEntry>; draining: Promise<void> | null };

// One queue per process, also across Next's module instances.
const g = globalThis as { __bellwetherBackgroundEnhance?: TQueue };
g.__bellwetherBackgroundEnhance ??= { waiting: new Map(), draining: null };
const queue = g.__bellwetherBackgroundEnhance;

/**
 * Queues background enhancements, one person at a time per process, each person at most once in the queue: a
 * person whose change arrives while their run is in flight is queued again and runs once more afterwards, with
 * the feed as it is then (however many changes arrived meanwhile). Across processes the enhancement's lease and
 * pending input do the same. Resolves when the queue has drained, these people included; never rejects.
 */
export function queueBackgroundEnhancement(
  db: TDb,
  userIds: Iterable<string>,
  opts: TBackgroundOptions = {},
): Promise<void> {
  for (const userId of userIds) queue.waiting.set(userId, { db, opts });
  if (queue.waiting.size === 0) return queue.draining ?? Promise.resolve();
  queue.draining ??= drain();
  return queue.draining;
}

async function drain(): Promise<void> {
  for (;;) {
    const next = queue.waiting.entries().next();
    if (next.done) {
      // Cleared before returning, in the same tick as the emptiness check: a later queue call starts a new drain.
      queue.draining = null;
      return;
    }
    const [userId, { db, opts }] = next.value;
    queue.waiting.delete(userId);
    // The injected clock is also what each model call reads (follow-ups carry their own time, docs/feed.md).
    const outcome = await enhanceInBackground(db, userId, opts.now ? { now: opts.now(), clock: opts.now } : {});
    if (outcome === "enhanced" || outcome === "failed") logger.info("background feed enhancement", { userId, outcome });
    try {
      opts.onEnhanced?.(userId, outcome);
    } catch (error) {
      logger.warn("background enhancement listener failed", { error });
    }
  }
}

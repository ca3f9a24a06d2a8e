import type { TDb } from "../db";
import { isAppError } from "../errors";
import {
  createFinalWriteBatch,
  DEFAULT_LEASE_MS,
  refreshTracker,
  type TRefreshOptions,
  type TRefreshResult,
} from "../intelligence/refresh";
import { claimDueTrackers, releaseClaims, type TLoadedTracker } from "../intelligence/tracker-store";
import { logger as rootLogger, type TLogger } from "../logger";

export type TRunDueOptions = {
  /** cron: the cron route; worker: `npm run worker`; scheduler: the server's own (docs/scheduling.md). */
  trigger: "cron" | "worker" | "scheduler";
  /**
   * Refreshes in flight at once. A refresh whose page was unchanged frees its lane as soon as its final write waits
   * in the pass's batch (final-write-batch.ts), and ends when that batch has committed.
   */
  concurrency: number;
  /** No new refresh starts after this many ms; unstarted claims are handed back for the next tick. */
  budgetMs: number;
  /** Stop after this many refreshes even with budget left (undefined = no cap). */
  maxTrackers?: number;
  now?: () => Date;
  /** Passed through to refreshTracker (tests: fixture capability config, mock models); its leaseMs is the claim's. */
  refreshOptions?: Omit<TRefreshOptions, "trigger" | "idempotencyKey" | "claimed" | "finalWrites">;
  log?: TLogger;
  /** Stops claiming when aborted (worker shutdown); refreshes in flight finish. */
  signal?: AbortSignal;
  /** Called for each refresh that recorded a change (material or notable): its owner's feed moved. */
  onChange?: (change: { userId: string; trackerId: string }) => void;
  /** Longest an unchanged run's final write waits for others in the pass's batch (default FINAL_WRITE_BATCH_WAIT_MS). */
  finalWriteWaitMs?: number;
  /** Hears every refresh's result and its wall time (the benchmark pairs them with its pages). */
  onResult?: (refresh: { trackerId: string; result: TRefreshResult; ms: number }) => void;
};

export type TRunDueSummary = {
  claimed: number;
  completed: number;
  failed: number;
  skipped: number;
  /** Refreshes that threw (e.g. the tracker was archived meanwhile). */
  errors: number;
  /** Claimed but not started before the budget ran out; due again immediately. */
  released: number;
  outcomes: Record<string, number>;
  budgetExhausted: boolean;
  durationMs: number;
  results: { trackerId: string; status: string; summary: string }[];
};

const MAX_RESULTS_IN_SUMMARY = 100;

/** A refresh that recorded a change (the ones that publish `tracker.changed`): its owner's briefing moved. */
export function recordedChange(result: Pick<TRefreshResult, "outcome" | "replayed">): boolean {
  return !result.replayed && (result.outcome === "material" || result.outcome === "notable");
}

/** A refresh whose outcome may have something to tell: a recorded change, or a failure (the "failing" notice). */
export function wakesNotifications(result: Pick<TRefreshResult, "outcome" | "replayed" | "status">): boolean {
  return recordedChange(result) || (!result.replayed && result.status === "failed");
}

/**
 * The claim loop shared by the cron route and the worker: claim due trackers a few at a time, refresh
 * them with at most `concurrency` at work at once, and stop starting new ones when the budget is spent (the
 * rest stay due for the next tick). Each refresh is the same refreshTracker the UI and the API call; an unchanged
 * one's final write joins the pass's batch (final-write-batch.ts), and its lane goes on meanwhile. Returns once
 * every write has committed.
 */
export async function runDueRefreshes(db: TDb, options: TRunDueOptions): Promise<TRunDueSummary> {
  const now = options.now ?? (() => new Date());
  const log = (options.log ?? rootLogger).child({ trigger: options.trigger });
  const started = performance.now();
  const deadline = started + options.budgetMs;
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const summary: TRunDueSummary = {
    claimed: 0,
    completed: 0,
    failed: 0,
    skipped: 0,
    errors: 0,
    released: 0,
    outcomes: {},
    budgetExhausted: false,
    durationMs: 0,
    results: [],
  };
  const queue: TLoadedTracker[] = [];
  const leaseMs = options.refreshOptions?.leaseMs ?? DEFAULT_LEASE_MS;
  let exhausted = false; // nothing due any more
  let startedCount = 0;
  let claiming: Promise<void> | null = null;

  const stopReason = (): "budget" | "cap" | "signal" | null => {
    if (options.signal?.aborted) return "signal";
    if (options.maxTrackers !== undefined && startedCount >= options.maxTrackers) return "cap";
    if (performance.now() >= deadline) return "budget";
    return null;
  };

  // One claim at a time per loop (a small batch), so few trackers sit claimed but unstarted.
  const refill = async () => {
    if (claiming) return claiming;
    claiming = (async () => {
      const room =
        options.maxTrackers === undefined
          ? concurrency
          : Math.min(concurrency, options.maxTrackers - startedCount - queue.length);
      if (room <= 0) return;
      // The claim leases the batch and loads each tracker's bundle: a claimed refresh starts without a read.
      const claimed = await claimDueTrackers(db, { limit: room, now: now(), leaseMs });
      summary.claimed += claimed.length;
      if (claimed.length === 0) exhausted = true;
      queue.push(...claimed);
    })().finally(() => {
      claiming = null;
    });
    return claiming;
  };

  // Unchanged runs' final writes, several to a statement (final-write-batch.ts).
  const batch = createFinalWriteBatch(db, {
    log,
    ...(options.finalWriteWaitMs !== undefined ? { maxWaitMs: options.finalWriteWaitMs } : {}),
  });
  // Refreshes whose lane moved on while their write waits in the batch.
  const settling = new Set<Promise<void>>();

  const refreshOne = async (claimed: TLoadedTracker) => {
    let queued: () => void = () => {};
    const writeQueued = new Promise<void>((resolve) => {
      queued = resolve;
    });
    const done = refreshAndTally(claimed, {
      write: (input) => {
        const written = batch.write(input);
        queued();
        return written;
      },
    });
    settling.add(done);
    void done.finally(() => settling.delete(done));
    // The lane is free once the write waits in the batch (the next refreshes fill it), unless two batches are
    // already on their way to the database.
    await Promise.race([done, writeQueued.then(batch.room)]);
  };

  const refreshAndTally = async (claimed: TLoadedTracker, finalWrites: TRefreshOptions["finalWrites"]) => {
    const trackerId = claimed.id;
    const startedAt = performance.now();
    try {
      const result = await refreshTracker(db, trackerId, {
        ...options.refreshOptions,
        trigger: options.trigger,
        claimed,
        log,
        finalWrites,
      });
      options.onResult?.({ trackerId, result, ms: performance.now() - startedAt });
      if (recordedChange(result)) {
        options.onChange?.({ userId: claimed.userId, trackerId });
      }
      if (result.status === "completed") summary.completed++;
      else if (result.status === "failed") summary.failed++;
      else summary.skipped++;
      const key = result.outcome ?? result.status;
      summary.outcomes[key] = (summary.outcomes[key] ?? 0) + 1;
      if (summary.results.length < MAX_RESULTS_IN_SUMMARY) {
        summary.results.push({ trackerId, status: result.status, summary: result.summary });
      }
    } catch (error) {
      summary.errors++;
      if (isAppError(error))
        log.warn("scheduled refresh refused", { trackerId, code: error.code, message: error.message });
      else log.error("scheduled refresh threw", { trackerId, error });
      if (summary.results.length < MAX_RESULTS_IN_SUMMARY) {
        summary.results.push({ trackerId, status: "error", summary: isAppError(error) ? error.message : "error" });
      }
    }
  };

  const lane = async () => {
    for (;;) {
      const stop = stopReason();
      if (stop) {
        if (stop === "budget") summary.budgetExhausted = true;
        return;
      }
      let next = queue.shift();
      if (next === undefined) {
        if (exhausted) return;
        await refill();
        next = queue.shift();
        if (next === undefined) {
          if (exhausted) return;
          continue;
        }
      }
      startedCount++;
      await refreshOne(next);
    }
  };

  try {
    await Promise.all(Array.from({ length: concurrency }, () => lane()));
  } finally {
    await batch.flush();
    await Promise.all(settling);
    if (claiming) await claiming;
    if (queue.length) {
      summary.released = queue.length;
      await releaseClaims(db, queue.splice(0), now());
    }
    summary.durationMs = Math.round(performance.now() - started);
  }
  return summary;
}

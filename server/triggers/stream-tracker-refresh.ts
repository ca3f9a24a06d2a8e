import type { TDb } from "../db";
import { createAsyncQueue } from "../events";
import { rejoinRun, type TRefreshOptions, type TRefreshResult, type TRunStepEvent } from "../intelligence/refresh";
import { refreshTrackerNow } from "./refresh-tracker-now";

export type TRefreshProgressEvent = { type: "step"; step: TRunStepEvent } | { type: "result"; result: TRefreshResult };

/**
 * "Refresh now" with live progress: the same refreshTrackerNow, yielding each step as it starts and
 * ends, then the result. If the listener goes away the refresh still finishes (and records its run); when it comes
 * back (the stream reconnects with the same key) while the run still goes, it gets that run's result once it ends.
 */
export async function* streamTrackerRefresh(
  db: TDb,
  input: { userId: string; trackerId: string; idempotencyKey?: string },
  seams: Omit<TRefreshOptions, "trigger" | "idempotencyKey" | "onStep"> = {},
  /** The listener's: once it is gone, a reconnect's wait for its run stops (the run itself goes on). */
  signal?: AbortSignal,
): AsyncGenerator<TRefreshProgressEvent, void, undefined> {
  const queue = createAsyncQueue<TRefreshProgressEvent>();
  // Not awaited here: the refresh runs on (counted as in-flight work by refreshTracker) even when the
  // listener goes away, and its steps and result reach the listener through the queue.
  refreshTrackerNow(
    db,
    { ...input, trigger: "manual" },
    { ...seams, onStep: (step) => queue.push({ type: "step", step }) },
  )
    // A reconnect (same key) that found its run still going waits for that run's end and answers with it.
    .then((result) =>
      input.idempotencyKey
        ? rejoinRun(
            db,
            {
              userId: input.userId,
              trackerId: input.trackerId,
              idempotencyKey: input.idempotencyKey,
              answer: result,
            },
            signal ? { signal } : {},
          )
        : result,
    )
    .then(
      (result) => {
        queue.push({ type: "result", result });
        queue.end();
      },
      (error: unknown) => queue.end(error),
    );
  yield* queue;
}

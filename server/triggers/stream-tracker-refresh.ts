import type { TDb } from "../db";
import type { TRefreshOptions, TRefreshResult, TRunStepEvent } from "../intelligence/refresh";
import { refreshTrackerNow } from "./refresh-tracker-now";

export type TRefreshProgressEvent = { type: "step"; step: TRunStepEvent } | { type: "result"; result: TRefreshResult };

/**
 * "Refresh now" with live progress: the same refreshTrackerNow, yielding each step as it starts and
 * ends, then the result. If the listener goes away the refresh still finishes (and records its run).
 */
export async function* streamTrackerRefresh(
  db: TDb,
  input: { userId: string; trackerId: string; idempotencyKey?: string },
  seams: Omit<TRefreshOptions, "trigger" | "idempotencyKey" | "onStep"> = {},
): AsyncGenerator<TRefreshProgressEvent, void, undefined> {
  const queue: TRunStepEvent[] = [];
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  let done = false;
  const settled: { result?: TRefreshResult; error?: unknown; failed?: boolean } = {};

  void refreshTrackerNow(
    db,
    { ...input, trigger: "manual" },
    {
      ...seams,
      onStep: (event) => {
        queue.push(event);
        notify();
      },
    },
  )
    .then(
      (result) => {
        settled.result = result;
      },
      (error: unknown) => {
        settled.failed = true;
        settled.error = error;
      },
    )
    .finally(() => {
      done = true;
      notify();
    });

  for (;;) {
    for (let event = queue.shift(); event; event = queue.shift()) yield { type: "step", step: event };
    if (done) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
  if (settled.failed) throw settled.error;
  if (!settled.result) throw new Error("The refresh ended without a result.");
  yield { type: "result", result: settled.result };
}

import type { TDb } from "../../db";
import { subscribe } from "../../events";
import { DEFAULT_LEASE_MS } from "./refresh-options";
import { existingResult, type TRefreshResult } from "./refresh-result";
import { findRunByKey } from "./run-record";

/** How long a rejoining caller waits for its run: a live run renews its lease, so this is a stuck one's bound. */
const REJOIN_WAIT_MS = 6 * DEFAULT_LEASE_MS;
/** Between looks at the database while waiting (a run deferred before it started sends no event). */
const REJOIN_POLL_MS = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * A caller that delivered the same idempotency key again while its run still runs (a "Refresh now" stream that
 * reconnected) is answered "running" by the lease (answer-busy.ts). This waits for that run to end and answers
 * with it, as a replay: woken by the run's `tracker.checked` event (on any instance), and looking in the database
 * at least every REJOIN_POLL_MS. Still running after `waitMs` (its holder died; its lease will expire): the same
 * "running" answer. Any other answer is returned as it is.
 */
export async function rejoinRun(
  db: TDb,
  input: { userId: string; trackerId: string; idempotencyKey: string; answer: TRefreshResult },
  opts: { waitMs?: number; signal?: AbortSignal } = {},
): Promise<TRefreshResult> {
  const { answer } = input;
  if (answer.status !== "running") return answer;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  // Replays the run's event if it was published a moment before this subscription (the bus keeps the newest).
  const ended = subscribe(input.userId, ["tracker.checked"], {
    signal: stop.signal,
    replayWithinMs: 60_000,
    filter: (event) => event.data.runId === answer.runId,
  })[Symbol.asyncIterator]();
  const deadline = Date.now() + (opts.waitMs ?? REJOIN_WAIT_MS);
  const next = () => ended.next().then((r) => (r.done ? "no more events" : "event"));
  try {
    let woken: Promise<string> = next(); // subscribes now; settles on the run's event
    for (;;) {
      const run = await findRunByKey(db, input.trackerId, input.idempotencyKey);
      if (run && run.status !== "pending") return existingResult(run, true);
      const left = deadline - Date.now();
      if (left <= 0 || stop.signal.aborted) return answer;
      const why = await Promise.race([woken, sleep(Math.min(REJOIN_POLL_MS, left)).then(() => "tick")]);
      if (why === "event") woken = next();
      else if (why === "no more events") woken = new Promise(() => {}); // the looks go on alone
    }
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    stop.abort(); // ends the subscription (its listener goes)
  }
}

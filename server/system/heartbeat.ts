import { setTimeout as sleep } from "node:timers/promises";

export type THeartbeat = { seq: number; at: Date };

/**
 * Emits a numbered tick every `intervalMs` until `signal` aborts. `after` resumes the numbering
 * from a reconnecting client's last seen tick, so ids stay monotonic across reconnects.
 */
export async function* heartbeats(opts: {
  intervalMs: number;
  after?: number;
  signal?: AbortSignal;
}): AsyncGenerator<THeartbeat> {
  let seq = opts.after ?? 0;
  while (!opts.signal?.aborted) {
    seq += 1;
    yield { seq, at: new Date() };
    try {
      await sleep(opts.intervalMs, undefined, { signal: opts.signal });
    } catch {
      return; // aborted while waiting
    }
  }
}

import type { TDb } from "../../db";
import type { TLogger } from "../../logger";
import { type TFinalWrite, writeRunFinal, writeRunFinals } from "./run-record";

/** Where a run's final write goes (refresh-tracker.ts `finalWrites`). */
export type TFinalWriter = { write: (input: TFinalWrite) => Promise<{ held: boolean }> };

export type TFinalWriteBatch = TFinalWriter & {
  /** Resolves once fewer than `maxInFlight` batch statements are on their way (the claim loop's back-pressure). */
  room: () => Promise<void>;
  /** Sends what is queued now and waits for every statement on its way (the claim loop's end). */
  flush: () => Promise<void>;
};

/** Most runs per statement (a counted check adds a row to its set of parts; any other run ~4 sub-statements). */
export const FINAL_WRITE_BATCH_ROWS = 16;
/**
 * Longest a queued write waits for others, in ms: a cron pass is not waited on by anyone, and its lanes do not wait
 * for their writes. At ~300 refreshes/s, 50 ms gathers a dozen runs a statement (10 ms: three).
 */
export const FINAL_WRITE_BATCH_WAIT_MS = 50;

type TQueued = {
  input: TFinalWrite;
  resolve: (result: { held: boolean }) => void;
  reject: (error: unknown) => void;
};

/**
 * The claim loop's batch of unchanged runs' final writes (docs/benchmarks.md, `--hot-path claim`): on this hardware a
 * statement costs the server's one JS thread ~0.4 ms whatever it carries (the driver's work, and the write that
 * wakes the database, which then runs on the same two cores) — more than the rest of an unchanged refresh. Queued
 * writes go as ONE statement (`writeRunFinals`: each run fenced on its own lease, so one that lost its lease
 * writes nothing and the others are written) when `maxRows` are queued or `maxWaitMs` after the first. A write
 * resolves once its statement committed, exactly as its own statement would. If a batch statement fails (it is
 * one statement: nothing of it was written), each of its runs is written on its own, so one bad run cannot fail
 * the others. A process that dies with writes queued loses only those: their runs were never written, and their
 * trackers' leases run out within seconds (docs/design.md §7) and they are due again, as after a crash mid-refresh.
 */
export function createFinalWriteBatch(
  db: TDb,
  options: { log: TLogger; maxRows?: number; maxWaitMs?: number; maxInFlight?: number },
): TFinalWriteBatch {
  const maxRows = options.maxRows ?? FINAL_WRITE_BATCH_ROWS;
  const maxWaitMs = options.maxWaitMs ?? FINAL_WRITE_BATCH_WAIT_MS;
  const maxInFlight = options.maxInFlight ?? 2;
  let queue: TQueued[] = [];
  let timer: NodeJS.Timeout | null = null;
  const inFlight = new Set<Promise<void>>();

  const send = async (batch: TQueued[]) => {
    try {
      const held = await writeRunFinals(
        db,
        batch.map((q) => q.input),
      );
      batch.forEach((q, i) => void q.resolve({ held: held[i] ?? false }));
    } catch (error) {
      if (batch.length === 1) return (batch[0] as TQueued).reject(error);
      options.log.warn("a batch of final writes failed; writing each run on its own", { runs: batch.length, error });
      await Promise.all(batch.map((q) => writeRunFinal(db, q.input).then(q.resolve, q.reject)));
    }
  };

  const sendQueued = () => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    const sent: Promise<void> = send(batch).finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  };

  return {
    write: (input) =>
      new Promise((resolve, reject) => {
        queue.push({ input, resolve, reject });
        if (queue.length >= maxRows) sendQueued();
        else timer ??= setTimeout(sendQueued, maxWaitMs);
      }),
    room: async () => {
      while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    },
    flush: async () => {
      sendQueued();
      await Promise.all(inFlight);
    },
  };
}

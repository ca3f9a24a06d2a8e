import type { TCheckOutcome } from "../../events";
import { prepareEvent } from "../../events";
import { storeCaptureSql } from "../../timeline";
import { checkCountRow } from "../../usage";
import { refreshSuccessRow, refreshSuccessSql, type TPageValidators, type TSuccessInput } from "../tracker-store";
import type { THealthUpdate } from "./field-health";
import type { TKeptCapture } from "./keep-capture";
import { RefreshFailure } from "./refresh-failure";
import { recordResult, type TRefreshResult } from "./refresh-result";
import { checkedEvent, runRecordOf, type TRunContext } from "./run-context";
import {
  isCountedCheck,
  ledgerUsage,
  type TBufferedLedgerEntry,
  type TFinalWrite,
  type TRunFinalInput,
  type TRunRecord,
  writeRunFinal,
} from "./run-record";
import type { TRunStep } from "./run-steps";
import { type TStampWrite, type TTimelineWrites, timelineCtes } from "./timeline-writes";

/** How a successful run ends; everything else its final write carries comes from the run itself. */
export type TRunEnding = {
  outcome: Exclude<TCheckOutcome, "failed">;
  summary: string;
  /** Field health after this run, folded into the tracker's bookkeeping; absent → kept as it was. */
  health?: THealthUpdate | null | undefined;
  /** New content's capture, stored in the same write. */
  keep?: TKeptCapture;
  /** The timeline's parts (timeline-writes.ts): an unchanged run's is its state stamp. */
  writes: TTimelineWrites | TStampWrite;
  /** A recorded change's materiality: `tracker.changed` rides in the write. */
  changed?: "material" | "notable" | null;
  /** The page's new cache validators (page-validators.ts), kept by the same write; absent → kept as they were. */
  validators?: TPageValidators | undefined;
};

/**
 * Step 7, the one write of a successful run, unchanged or not: run record, usage ledger and tracker bookkeeping
 * (fenced on the lease, which also writes the next run) and the timeline's parts, in ONE statement — no transaction,
 * no read-back (docs/design.md §3). Lost the lease → nothing written, LEASE_LOST.
 */
export async function finishRun(
  ctx: TRunContext,
  { keep, writes, changed, validators, ...ending }: TRunEnding,
): Promise<TRefreshResult> {
  const { db, options, tracker, steps } = ctx;
  // An unchanged run's write may join the claim loop's batch; one that stores or changes anything is its own.
  const write: (input: TFinalWrite) => Promise<{ held: boolean }> =
    options.finalWrites && ending.outcome === "unchanged" && !keep && !changed
      ? options.finalWrites.write
      : (input) => writeRunFinal(db, input);
  // Both events are folded into the final statement and delivered here once it committed.
  const checked = checkedEvent(ctx, ending.outcome);
  // Whoever shows trackers (the feed, open tracker pages) hears of a recorded change once it committed; the hot
  // loop does not know them (docs/design.md §2).
  const changedEvent = changed
    ? prepareEvent("tracker.changed", { userId: tracker.userId, trackerId: tracker.id, materiality: changed })
    : undefined;
  steps.start("append");
  const appendStarted = performance.now();
  // The write's own duration cannot be inside its own record: "append" measures up to sending it.
  const step: TRunStep = { step: "append", status: "ok", ms: Math.round(performance.now() - appendStarted) };
  steps.steps.push(step);
  const run = {
    ...runRecordOf(ctx, { status: "completed", outcome: ending.outcome, summary: ending.summary }),
    ...(keep ? { captureId: keep.capture.id, replayBasis: keep.basis } : {}),
  };
  const { held } = await write(
    successWrite({
      run,
      success: {
        ...ctx.fence,
        scheduleMinutes: tracker.scheduleMinutes,
        now: run.finishedAt,
        fieldHealth: ending.health,
        pageValidators: validators,
      },
      ledger: ctx.ledger.entries,
      writes,
      keep,
      notify: [checked.notify, changedEvent?.notify ?? null],
    }),
  );
  if (!held)
    throw new RefreshFailure("LEASE_LOST", "Another refresh took over this tracker; nothing was written.", true);
  checked.deliverHere();
  changedEvent?.deliverHere();
  steps.announce(step);
  return recordResult(run, false);
}

/**
 * A successful run's final write, composed: a counted check (isCountedCheck) as rows, which its statement writes with
 * every other counted check by one set of parts (run-record.ts TCountedWrite); any other run as its own parts — the
 * tracker's bookkeeping fenced on the lease, the run record and ledger (or its day's count), the timeline's parts (the
 * stamp; or the change, the new state and the capture) and the events.
 */
export function successWrite(input: {
  run: TRunRecord;
  success: TSuccessInput;
  ledger: TBufferedLedgerEntry[];
  writes: TTimelineWrites | TStampWrite;
  keep?: TKeptCapture | undefined;
  /** The run's events: `tracker.checked`, and `tracker.changed` for a recorded change. */
  notify: ({ channel: string; payload: string } | null)[];
}): TFinalWrite {
  const { run, success, ledger, writes, keep } = input;
  const countOnly = isCountedCheck(run);
  const alone = (): TRunFinalInput => {
    const parts = timelineCtes(writes);
    return {
      fence: refreshSuccessSql(success),
      run,
      ledger,
      fenced: true,
      countOnly,
      // Unchanged, the state stamp; new content, the change row (and its outbox row), the new state and the capture.
      extra: (guard) =>
        keep ? [...parts(run.finishedAt, guard), storeCaptureSql(keep.capture, guard)] : parts(run.finishedAt, guard),
      notify: input.notify,
    };
  };
  const [checked, ...others] = input.notify;
  if (!countOnly || keep || typeof writes === "function" || others.some((n) => n !== null)) return alone();
  return {
    counted: {
      fence: refreshSuccessRow(success),
      stamp: { ...writes.stamp, checkedAt: run.finishedAt.toISOString() },
      count: checkCountRow({
        kind: "unchanged",
        trackerId: run.trackerId,
        at: run.startedAt,
        usage: ledgerUsage(ledger),
      }),
      notify: checked ?? null,
    },
    alone,
  };
}

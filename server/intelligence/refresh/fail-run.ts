import { refreshFailureSql } from "../tracker-store";
import { describeFailure } from "./refresh-failure";
import { recordResult, type TRefreshResult } from "./refresh-result";
import { checkedEvent, runRecordOf, type TRunContext } from "./run-context";
import { writeRunFinal } from "./run-record";

/**
 * Any step failed (docs/design.md §3 "Failure path"): state untouched; the run says what went wrong; only the lease
 * holder updates the tracker's failure bookkeeping (backoff + jitter) and releases the lease. One statement (with the
 * event's NOTIFY in it).
 */
export async function failRun(ctx: TRunContext, error: unknown): Promise<TRefreshResult> {
  const failure = describeFailure(error);
  if (failure.code === "INTERNAL") ctx.log.error("refresh failed unexpectedly", { error });
  else ctx.log.warn("refresh failed", { code: failure.code, message: failure.message });
  const failed = {
    ...runRecordOf(ctx, { status: "failed", outcome: null, summary: `failed: ${failure.message}` }),
    error: failure,
  };
  const event = checkedEvent(ctx, "failed");
  await writeRunFinal(ctx.db, {
    fence: refreshFailureSql({
      ...ctx.fence,
      scheduleMinutes: ctx.tracker.scheduleMinutes,
      now: failed.finishedAt,
      previousFailures: ctx.tracker.consecutiveFailures,
      message: failure.message,
    }),
    run: failed,
    ledger: ctx.ledger.entries,
    fenced: false,
    notify: [event.notify],
  });
  event.deliverHere();
  return recordResult(failed, false);
}

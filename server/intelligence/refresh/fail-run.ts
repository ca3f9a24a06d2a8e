import { refreshDeferredSql, refreshFailureSql } from "../tracker-store";
import { describeFailure, RefreshFailure } from "./refresh-failure";
import { recordResult, type TRefreshResult } from "./refresh-result";
import { checkedEvent, runRecordOf, type TRunContext } from "./run-context";
import { isCountedCheck, writeRunFinal } from "./run-record";

/**
 * Any step failed (docs/design.md §3 "Failure path"): state untouched; the run says what went wrong; only the lease
 * holder updates the tracker's failure bookkeeping (backoff + jitter, never before a host's Retry-After) and releases
 * the lease. One statement (with the event's NOTIFY in it). A call the host's gate never sent is deferred instead.
 */
export async function failRun(ctx: TRunContext, error: unknown): Promise<TRefreshResult> {
  if (error instanceof RefreshFailure && error.wait?.kind === "deferred") return deferRun(ctx, error, error.wait.until);
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
      notBefore: error instanceof RefreshFailure && error.wait?.kind === "answered" ? error.wait.until : null,
    }),
    run: failed,
    ledger: ctx.ledger.entries,
    fenced: false,
    notify: [event.notify],
  });
  event.deliverHere();
  return recordResult(failed, false);
}

/**
 * The host's gate sent no request (docs/scheduling.md "Politeness per host"): the host asked us to wait (`until`) or
 * stayed busy with other trackers' calls. Not a failure — nothing was learnt about the page — so the tracker's failure
 * count, error, last run and state stay as they were and no `tracker.checked` is sent; the run is skipped ("deferred",
 * with the reason) and the tracker is due again when the host may be asked. A scheduled one is counted on its
 * tracker's day, not stored (docs/refresh.md). Lost the lease → nothing written, as any run.
 */
async function deferRun(ctx: TRunContext, failure: RefreshFailure, until: Date | null): Promise<TRefreshResult> {
  ctx.log.info("refresh deferred: its host asked us to wait or is busy", { message: failure.message });
  const run = {
    ...runRecordOf(ctx, { status: "skipped", outcome: "deferred", summary: `deferred: ${failure.message}` }),
    error: { code: failure.code, message: failure.message, retryable: true },
  };
  await writeRunFinal(ctx.db, {
    fence: refreshDeferredSql({ ...ctx.fence, now: run.finishedAt, until }),
    run,
    ledger: ctx.ledger.entries,
    fenced: true,
    countOnly: isCountedCheck(run),
  });
  return recordResult(run, false);
}

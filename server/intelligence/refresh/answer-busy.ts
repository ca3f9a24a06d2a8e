import type { TDb } from "../../db";
import { ZERO_USAGE } from "../fill";
import type { TRefreshOptions } from "./refresh-options";
import { existingResult, recordResult, type TRefreshResult } from "./refresh-result";
import { findRunByKey, recordSkippedRun, runIdFor, type TRunRecord } from "./run-record";

/**
 * Another refresh holds the lease. The same idempotency key in flight (its run id is the holder token's
 * first part) → "running" with that run's id; the run records itself when it ends. Otherwise this call is
 * recorded as skipped with its answer, so the runs log has no run that never ends and a replay of its key
 * answers the same without a fetch.
 */
export async function answerBusy(
  db: TDb,
  trackerId: string,
  holder: string | null,
  input: { options: TRefreshOptions; key: string | null; startedAt: Date; now: () => Date },
): Promise<TRefreshResult> {
  const runId = runIdFor(trackerId, input.key);
  if (input.key && holder?.startsWith(`${runId}:`)) {
    return { runId, status: "running", outcome: null, summary: "running", modelCalls: 0, error: null, replayed: true };
  }
  const skipped: TRunRecord = {
    id: runId,
    trackerId,
    trigger: input.options.trigger,
    idempotencyKey: input.key,
    status: "skipped",
    outcome: "in_flight",
    summary: "skipped: in flight",
    definitionVersion: null,
    steps: [],
    modelCalls: 0,
    usage: ZERO_USAGE,
    error: null,
    startedAt: input.startedAt,
    finishedAt: input.now(),
  };
  if (await recordSkippedRun(db, skipped)) return recordResult(skipped, false);
  // Lost a race to another delivery of the same key: answer from its run.
  const existing = input.key ? await findRunByKey(db, trackerId, input.key) : null;
  return existing ? existingResult(existing, true) : recordResult(skipped, false);
}

import type { TRefreshOutcome, TRefreshResult } from "@/contracts/refresh-run";
import type { TExistingRun } from "../tracker-store";
import type { TRunRecord } from "./run-record";

export type { TRefreshOutcome, TRefreshResult } from "@/contracts/refresh-run";

/** The answer of a run that already exists (a replayed idempotency key, or the delivery that won a race). */
export function existingResult(run: TExistingRun, replayed: boolean): TRefreshResult {
  return {
    runId: run.id,
    status: run.status === "pending" ? "running" : run.status,
    outcome: (run.outcome as TRefreshOutcome | null) ?? null,
    summary: run.summary ?? run.status,
    modelCalls: run.modelCalls,
    error: run.error,
    replayed,
  };
}

/** The answer of a run this call recorded. */
export function recordResult(run: TRunRecord, replayed: boolean): TRefreshResult {
  return {
    runId: run.id,
    status: run.status,
    outcome: (run.outcome as TRefreshOutcome | null) ?? null,
    summary: run.summary,
    modelCalls: run.modelCalls,
    error: run.error,
    replayed,
  };
}

import type { TExistingRun } from "../tracker-store";
import type { TRunRecord } from "./run-record";

export type TRefreshOutcome = "unchanged" | "noise" | "notable" | "material" | "baseline" | "in_flight" | "interrupted";

export type TRefreshResult = {
  runId: string;
  status: "completed" | "failed" | "skipped" | "running";
  outcome: TRefreshOutcome | null;
  /** One line for people: "no change", "noise: rating 4.4→4.3", "material: …", "failed: …". */
  summary: string;
  modelCalls: number;
  error: { code: string; message: string; retryable: boolean } | null;
  /** True when an earlier run with the same idempotency key answered and nothing was done now. */
  replayed: boolean;
};

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

import type { TRefreshRunView, TRunStepView } from "@/contracts/trackers";
import type { RefreshRun } from "../../generated/prisma/client";

export type { TRefreshRunView, TRunStepView };

function toSteps(value: unknown): TRunStepView[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((s) => {
    if (!s || typeof s !== "object") return [];
    const step = s as Record<string, unknown>;
    return [
      {
        step: String(step.step ?? "?"),
        status: String(step.status ?? "?"),
        ms: typeof step.ms === "number" ? step.ms : 0,
        ...(typeof step.detail === "string" ? { detail: step.detail } : {}),
      },
    ];
  });
}

/** A run record as the runs log shows it (JSON columns read defensively: old rows may lack keys). */
export function toRefreshRunView(run: RefreshRun): TRefreshRunView {
  const error = run.error as { code?: string; message?: string } | null;
  return {
    id: run.id,
    trigger: run.trigger,
    status: run.status,
    outcome: run.outcome,
    summary: run.summary,
    modelCalls: run.modelCalls,
    durationMs:
      run.startedAt && run.finishedAt ? Math.max(0, run.finishedAt.getTime() - run.startedAt.getTime()) : null,
    error: error ? { code: String(error.code ?? "ERROR"), message: String(error.message ?? "") } : null,
    steps: toSteps(run.steps),
    definitionVersion: run.definitionVersion,
    createdAt: run.createdAt,
  };
}

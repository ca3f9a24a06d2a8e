"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC, useTRPCClient } from "@/components/providers/trpc";
import { buttonPrimary } from "@/components/ui/button-styles";
import type { TRefreshResult, TRunStepEvent } from "@/server/intelligence/refresh";
import { refreshErrorMessage } from "./refresh-error-message";

const OUTCOME_STYLES: Record<string, string> = {
  material: "text-red-800 dark:text-red-300",
  notable: "text-amber-800 dark:text-amber-300",
  failed: "text-red-700 dark:text-red-400",
};

const STEP_LABELS: Record<TRunStepEvent["step"], string> = {
  lease: "Claiming the tracker",
  crawl: "Fetching the source",
  precheck: "Checking whether anything changed",
  fill: "Reading the tracked fields",
  diff: "Comparing with the last record",
  judge: "Judging what changed",
  append: "Saving",
};

const STATUS_MARKS: Record<TRunStepEvent["status"], { mark: string; label: string }> = {
  running: { mark: "…", label: "in progress" },
  ok: { mark: "✓", label: "done" },
  skipped: { mark: "–", label: "skipped" },
  failed: { mark: "✗", label: "failed" },
};

type TRefreshView =
  | { phase: "idle" }
  | { phase: "running" | "done"; steps: TRunStepEvent[]; result?: TRefreshResult }
  | { phase: "error"; steps: TRunStepEvent[]; message: string };

/** The latest event per step, in the order the steps started. */
function mergeStep(steps: TRunStepEvent[], event: TRunStepEvent): TRunStepEvent[] {
  const at = steps.findIndex((s) => s.step === event.step);
  if (at === -1) return [...steps, event];
  return steps.map((s, i) => (i === at ? event : s));
}

/**
 * "Refresh now": the same refreshTracker the scheduler runs, streamed over SSE so each step shows as it
 * happens, ending with the one-line outcome.
 */
export function RefreshNow({ trackerId, disabled }: { trackerId: string; disabled?: boolean }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [view, setView] = useState<TRefreshView>({ phase: "idle" });
  const subscription = useRef<{ unsubscribe: () => void } | null>(null);

  useEffect(() => () => subscription.current?.unsubscribe(), []);

  const start = () => {
    subscription.current?.unsubscribe();
    setView({ phase: "running", steps: [] });
    const settle = () => {
      subscription.current?.unsubscribe();
      subscription.current = null;
      void queryClient.invalidateQueries({ queryKey: trpc.tracker.pathKey() });
    };
    subscription.current = client.tracker.refreshProgress.subscribe(
      // A fresh key per click: if the stream reconnects, the server replays this run instead of starting another.
      { trackerId, idempotencyKey: `ui:${crypto.randomUUID()}` },
      {
        onData: (event) => {
          if (event.type === "step") {
            setView((v) => (v.phase === "running" ? { ...v, steps: mergeStep(v.steps, event.step) } : v));
          } else {
            setView((v) => ({ phase: "done", steps: v.phase === "idle" ? [] : v.steps, result: event.result }));
            settle();
          }
        },
        onError: (error) => {
          const message = refreshErrorMessage(error);
          setView((v) => ({ phase: "error", steps: v.phase === "idle" ? [] : v.steps, message }));
          settle();
        },
      },
    );
  };

  const running = view.phase === "running";
  const steps = view.phase === "idle" ? [] : view.steps;
  const result = view.phase === "done" ? view.result : undefined;
  const current = running ? steps.findLast((s) => s.status === "running") : undefined;
  const tone = result ? (OUTCOME_STYLES[result.status === "failed" ? "failed" : (result.outcome ?? "")] ?? "") : "";

  return (
    <div className="flex flex-col gap-2">
      <button
        type="button"
        className={buttonPrimary}
        disabled={disabled || running}
        aria-describedby="refresh-feedback"
        onClick={start}
      >
        {running ? "Refreshing…" : "Refresh now"}
      </button>
      <div id="refresh-feedback" className="min-h-5 space-y-1 text-sm">
        {running ? (
          <p role="status" data-testid="refresh-progress" data-step={current?.step ?? ""}>
            {current ? `${STEP_LABELS[current.step]}…` : "Starting…"}
          </p>
        ) : null}
        {steps.length > 0 ? (
          <ol data-testid="refresh-steps" aria-label="Refresh steps" className="space-y-0.5">
            {steps.map((s) => (
              <li
                key={s.step}
                data-testid="refresh-step"
                data-step={s.step}
                data-status={s.status}
                className={
                  s.status === "failed" ? "text-red-700 dark:text-red-400" : "text-stone-600 dark:text-stone-400"
                }
              >
                <span aria-hidden="true" className="inline-block w-4">
                  {STATUS_MARKS[s.status].mark}
                </span>
                {STEP_LABELS[s.step]}
                <span className="sr-only"> — {STATUS_MARKS[s.status].label}</span>
                {s.status !== "running" && s.ms > 0 ? <span className="text-stone-500"> · {s.ms} ms</span> : null}
                {s.status !== "running" && s.detail ? <span className="text-stone-500"> · {s.detail}</span> : null}
              </li>
            ))}
          </ol>
        ) : null}
        {result ? (
          <p
            role="status"
            data-testid="refresh-outcome"
            data-outcome={result.outcome ?? result.status}
            className={tone}
          >
            {result.summary}
            {result.modelCalls ? ` · ${result.modelCalls} model call(s)` : ""}
          </p>
        ) : null}
        {view.phase === "error" ? (
          <p role="alert" data-testid="refresh-outcome" data-outcome="error" className="text-red-700 dark:text-red-400">
            {view.message}
          </p>
        ) : null}
      </div>
    </div>
  );
}

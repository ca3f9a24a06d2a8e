"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC, useTRPCClient } from "@/components/providers/trpc";
import { buttonPrimary } from "@/components/ui/button-styles";
import type { TRefreshResult, TRunStepEvent } from "@/contracts/refresh-run";
import { refreshErrorMessage } from "./refresh-error-message";
import { arrivalStamp, type TLastChecked } from "./use-tracker-live";

type TStep = TRunStepEvent["step"];

/** The hot loop's steps in the order they run (docs/design.md §3); progress only ever moves along this list. */
const STEPS: readonly TStep[] = ["lease", "crawl", "precheck", "fill", "diff", "judge", "append"];

const OUTCOME_STYLES: Record<string, string> = {
  material: "text-red-800 dark:text-red-300",
  notable: "text-amber-800 dark:text-amber-300",
  failed: "text-red-700 dark:text-red-400",
};

/** While EventSource reopens a stream that gave way; the server answers the reopened stream with the same run. */
const RECONNECTING = "Connection lost — reconnecting…";

const STEP_LABELS: Record<TStep, string> = {
  lease: "Claiming the tracker",
  crawl: "Fetching the source",
  precheck: "Checking whether anything changed",
  fill: "Reading the tracked fields",
  diff: "Comparing with the last record",
  judge: "Judging what changed",
  append: "Saving",
};

/** "unfollowed": the step was running when the stream gave way, so how it ended is not known here. */
type TSlotStatus = TRunStepEvent["status"] | "pending" | "unfollowed";

const STATUS_MARKS: Record<TSlotStatus, { mark: string; label: string; className: string }> = {
  pending: { mark: "○", label: "not reached", className: "text-stone-400 dark:text-stone-600" },
  running: { mark: "…", label: "in progress", className: "text-sky-700 dark:text-sky-300" },
  unfollowed: { mark: "?", label: "not followed to its end", className: "text-stone-600 dark:text-stone-400" },
  ok: { mark: "✓", label: "done", className: "text-emerald-700 dark:text-emerald-400" },
  skipped: { mark: "–", label: "skipped", className: "text-stone-600 dark:text-stone-400" },
  failed: { mark: "✗", label: "failed", className: "text-red-700 dark:text-red-400" },
};

/** `at`: when the answer arrived (arrivalStamp), to tell a later run's end from one heard before it. */
type TRefreshView =
  | { phase: "idle" }
  /** `reconnecting`: the stream gave way and EventSource is opening it again (the server rejoins the same run). */
  | { phase: "running"; steps: TRunStepEvent[]; reconnecting: boolean }
  | { phase: "done"; steps: TRunStepEvent[]; result: TRefreshResult; at: number }
  | { phase: "error"; steps: TRunStepEvent[]; message: string; at: number };

/** What the outcome line says once a later run (the scheduler's, the API's, another tab's) has ended. */
export function laterRunLine(outcome: TLastChecked["outcome"]): string {
  switch (outcome) {
    case "material":
    case "notable":
    case "baseline":
      return "Since then, another run recorded a new change";
    case "failed":
      return "Since then, another run failed";
    default:
      return "Since then, another run found no change";
  }
}

/**
 * The run that ended after this block's answer (its run id — null for an error — and when it arrived), if any: the
 * answer belongs to its own run, so once another run of the tracker has ended it is no longer the tracker's news.
 * Our own run's end, heard before or after our answer, and any run's end heard before it leave the answer current.
 */
export function laterRun(
  answer: { runId: string | null; at: number } | null,
  lastChecked: TLastChecked | null | undefined,
): TLastChecked | null {
  if (!answer || !lastChecked || lastChecked.at <= answer.at) return null;
  return lastChecked.runId === answer.runId ? null : lastChecked;
}

/** The latest event per step. */
function mergeStep(steps: TRunStepEvent[], event: TRunStepEvent): TRunStepEvent[] {
  const at = steps.findIndex((s) => s.step === event.step);
  if (at === -1) return [...steps, event];
  return steps.map((s, i) => (i === at ? event : s));
}

/** The furthest step reached so far (started or finished), or null before the first. */
function furthestStep(steps: TRunStepEvent[]): TStep | null {
  let furthest = -1;
  for (const s of steps) furthest = Math.max(furthest, STEPS.indexOf(s.step));
  return furthest === -1 ? null : (STEPS[furthest] as TStep);
}

/**
 * "Refresh now": the same refreshTracker the scheduler runs, streamed over SSE. A fixed-width button, then one
 * line that only moves forward (the furthest step reached — never back to "Starting…" between two steps) above a
 * row of the seven steps, each marked as it runs; then the one-line outcome in the same place. The block keeps
 * its size from the first click to the outcome, so nothing around it moves. When another run of the tracker ends
 * later (`lastChecked`, from the page's live events), the outcome line says what that run found instead.
 */
export function RefreshNow({
  trackerId,
  disabled,
  lastChecked,
}: {
  trackerId: string;
  disabled?: boolean;
  lastChecked?: TLastChecked | null;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [view, setView] = useState<TRefreshView>({ phase: "idle" });
  const subscription = useRef<{ unsubscribe: () => void } | null>(null);

  useEffect(() => () => subscription.current?.unsubscribe(), []);

  const start = () => {
    subscription.current?.unsubscribe();
    setView({ phase: "running", steps: [], reconnecting: false });
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
            const at = arrivalStamp();
            setView((v) => ({ phase: "done", steps: v.phase === "idle" ? [] : v.steps, result: event.result, at }));
            settle();
          }
        },
        // "connecting" with an error: the stream dropped and is being reopened; "pending": it is open again.
        onConnectionStateChange: (state) => {
          const reconnecting = state.state === "connecting" && state.error !== null;
          setView((v) => (v.phase === "running" && v.reconnecting !== reconnecting ? { ...v, reconnecting } : v));
        },
        onError: (error) => {
          const message = refreshErrorMessage(error);
          const at = arrivalStamp();
          setView((v) => ({ phase: "error", steps: v.phase === "idle" ? [] : v.steps, message, at }));
          settle();
        },
      },
    );
  };

  const running = view.phase === "running";
  const steps = view.phase === "idle" ? [] : view.steps;
  const answer =
    view.phase === "done"
      ? { runId: view.result.runId, at: view.at }
      : view.phase === "error"
        ? { runId: null, at: view.at }
        : null;
  const later = laterRun(answer, lastChecked);
  const result = view.phase === "done" && !later ? view.result : undefined;
  const furthest = furthestStep(steps);
  const tone = result ? (OUTCOME_STYLES[result.status === "failed" ? "failed" : (result.outcome ?? "")] ?? "") : "";
  const line = "min-h-10 line-clamp-2 text-sm";

  return (
    <div className="flex w-full shrink-0 flex-col gap-2 sm:w-64 sm:items-end" data-testid="refresh-now">
      <button
        type="button"
        className={`${buttonPrimary} w-40`}
        disabled={disabled || running}
        aria-describedby="refresh-feedback"
        onClick={start}
      >
        {running ? "Refreshing…" : "Refresh now"}
      </button>
      {/* Beside the header (sm and up) the block's room is kept from the start, so a click moves nothing. It is one
          polite live region that is there before the click: a region mounted together with its first words is
          often not announced (docs/testing.md, accessibility). */}
      <div
        id="refresh-feedback"
        role="status"
        data-testid="refresh-feedback"
        className="w-full space-y-1 sm:min-h-[4.25rem] sm:text-right"
      >
        {running ? (
          <p
            data-testid="refresh-progress"
            data-step={furthest ?? ""}
            data-reconnecting={view.reconnecting ? "true" : undefined}
            className={line}
          >
            {view.reconnecting ? RECONNECTING : furthest ? `${STEP_LABELS[furthest]}…` : "Starting…"}
          </p>
        ) : null}
        {result ? (
          <p
            data-testid="refresh-outcome"
            data-outcome={result.outcome ?? result.status}
            className={`${line} ${tone}`}
            title={result.summary}
          >
            {result.summary}
            {result.modelCalls ? ` · ${result.modelCalls} model call(s)` : ""}
          </p>
        ) : null}
        {later ? (
          <p
            data-testid="refresh-outcome"
            data-outcome={later.outcome}
            data-later-run="true"
            className={`${line} ${OUTCOME_STYLES[later.outcome] ?? ""}`}
          >
            {laterRunLine(later.outcome)}
          </p>
        ) : null}
        {view.phase === "error" && !later ? (
          <p
            role="alert"
            data-testid="refresh-outcome"
            data-outcome="error"
            className={`${line} text-red-700 dark:text-red-400`}
          >
            {view.message}
          </p>
        ) : null}
        {view.phase !== "idle" ? (
          // Our run's steps are not the later run's: hidden, but their room kept so the block keeps its size.
          <ol
            data-testid="refresh-steps"
            aria-label="Refresh steps"
            className={`flex gap-1 text-sm sm:justify-end ${later ? "invisible" : ""}`}
          >
            {STEPS.map((name) => {
              const event = steps.find((s) => s.step === name);
              const reported: TSlotStatus = event?.status ?? "pending";
              // Still "running" once the block stopped listening (the stream gave way): how it ended is not known.
              const status: TSlotStatus = reported === "running" && !running ? "unfollowed" : reported;
              // A run that ended before a step (an unchanged page stops after the pre-check) did not need it.
              const mark =
                status === "pending" && !running
                  ? { ...STATUS_MARKS.pending, label: "not needed" }
                  : STATUS_MARKS[status];
              const timing = event && event.status !== "running" && event.ms > 0 ? ` · ${event.ms} ms` : "";
              const detail = event && event.status !== "running" && event.detail ? ` · ${event.detail}` : "";
              return (
                <li
                  key={name}
                  data-testid="refresh-step"
                  data-step={name}
                  data-status={status}
                  title={`${STEP_LABELS[name]} — ${mark.label}${timing}${detail}`}
                  className={`inline-flex h-6 w-6 items-center justify-center rounded border border-stone-200 dark:border-stone-700 ${mark.className}`}
                >
                  <span aria-hidden="true">{mark.mark}</span>
                  <span className="sr-only">
                    {STEP_LABELS[name]} — {mark.label}
                    {timing}
                    {detail}
                  </span>
                </li>
              );
            })}
          </ol>
        ) : null}
      </div>
    </div>
  );
}

"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { TReplayPlan, TReplayResult } from "@/contracts/replay";
import { errorBodyMessage, parseReplayLines } from "./replay-view";

export type TReplayRun =
  | { phase: "idle" }
  | { phase: "running"; plan: TReplayPlan | null; done: number; total: number }
  | { phase: "done"; result: TReplayResult; done: number; total: number }
  /** Cancelled by the person: the replay stopped on the server; nothing was shown or recorded. */
  | { phase: "cancelled"; done: number; total: number }
  | { phase: "error"; message: string };

export type TReplayRunBody = { from?: string; to?: string; modelBudget: number };

/**
 * Runs a replay through POST /api/trackers/[trackerId]/replay and follows its NDJSON lines (progress… over the
 * captures, the plan, progress… of a model pass if there is one, then result | error). `cancel` aborts the request, which stops the replay on the server; the result it still sends
 * (cancelled: true) is shown if it arrives, otherwise the run just ends.
 */
export function useReplayStream(trackerId: string) {
  const [run, setRun] = useState<TReplayRun>({ phase: "idle" });
  const controller = useRef<AbortController | null>(null);

  // Leaving the page (or the panel) cancels a replay in flight.
  useEffect(
    () => () => {
      const current = controller.current;
      controller.current = null;
      current?.abort();
    },
    [],
  );

  const start = useCallback(
    async (body: TReplayRunBody) => {
      controller.current?.abort();
      const abort = new AbortController();
      controller.current = abort;
      setRun({ phase: "running", plan: null, done: 0, total: 0 });
      let progress = { done: 0, total: 0 };
      let ended = false;
      try {
        const res = await fetch(`/api/trackers/${encodeURIComponent(trackerId)}/replay`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: abort.signal,
        });
        if (!res.ok || !res.body) {
          const json = await res.json().catch(() => null);
          setRun({ phase: "error", message: errorBodyMessage(json, res.status) });
          return;
        }
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const { events, rest } = parseReplayLines(buffer + value);
          buffer = rest;
          for (const event of events) {
            if (event.type === "plan") {
              // Said after the pass over the captures; a model pass, if any, reports its own progress next.
              const plan = event.plan;
              setRun((now) => (now.phase === "running" ? { ...now, plan } : now));
            } else if (event.type === "progress") {
              progress = { done: event.done, total: event.total };
              setRun((now) => (now.phase === "running" ? { ...now, ...progress } : now));
            } else if (event.type === "result") {
              ended = true;
              setRun({ phase: "done", result: event.result, ...progress });
            } else {
              ended = true;
              setRun({ phase: "error", message: event.message });
            }
          }
        }
        if (!ended && controller.current === abort) {
          setRun(
            abort.signal.aborted
              ? { phase: "cancelled", ...progress }
              : { phase: "error", message: "The replay stopped before it finished. Please try again." },
          );
        }
      } catch (error) {
        // A newer run or a reset took over: this one's ending is not news.
        if (controller.current !== abort) return;
        if (abort.signal.aborted) {
          if (!ended) setRun({ phase: "cancelled", ...progress });
          return;
        }
        setRun({
          phase: "error",
          message: `The replay could not be reached: ${error instanceof Error ? error.message : String(error)}`,
        });
      } finally {
        if (controller.current === abort) controller.current = null;
      }
    },
    [trackerId],
  );

  const cancel = useCallback(() => controller.current?.abort(), []);
  const reset = useCallback(() => {
    const current = controller.current;
    controller.current = null;
    current?.abort();
    setRun({ phase: "idle" });
  }, []);

  return { run, start, cancel, reset };
}

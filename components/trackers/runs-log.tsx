"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { LocalDay, LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { buttonSecondary } from "@/components/ui/button-styles";
import type { TRefreshRunView } from "@/contracts/trackers";
import { PRUNED_DAYS_LIMIT, RUNS_ALL_LIMIT, RUNS_PREVIEW_LIMIT, RUNS_SHOWN } from "./page-queries";

/**
 * The runs log: the last five runs (trigger, status, duration, model calls, error, and each run's steps), "Show
 * all" for the rest; below it, the checks counted per day instead of stored — scheduled checks that found the page
 * unchanged, and older runs retention summed (docs/refresh.md "Unchanged checks are counted, not stored").
 */
export function RunsLog({ trackerId }: { trackerId: string }) {
  const trpc = useTRPC();
  const [all, setAll] = useState(false);
  const runs = useQuery({
    ...trpc.tracker.runs.queryOptions({ trackerId, limit: all ? RUNS_ALL_LIMIT : RUNS_PREVIEW_LIMIT }),
    // "Show all" keeps the five on screen while the rest load.
    placeholderData: keepPreviousData,
  });
  if (runs.isPending) return <p role="status">Loading runs…</p>;
  if (runs.isError) return <p role="alert">Could not load runs: {runs.error.message}</p>;
  if (runs.data.length === 0) {
    return (
      <>
        <p className="text-sm text-stone-600 dark:text-stone-400">No runs kept yet.</p>
        <CountedDays trackerId={trackerId} />
      </>
    );
  }
  const shown = all && !runs.isPlaceholderData ? runs.data : runs.data.slice(0, RUNS_SHOWN);
  const more = !all && runs.data.length > RUNS_SHOWN;
  return (
    <>
      <RunList runs={shown} />
      {more || all ? (
        <div className="mt-3 flex flex-wrap items-center gap-3 text-sm">
          <button
            type="button"
            className={buttonSecondary}
            aria-expanded={all}
            aria-controls="runs-log"
            onClick={() => setAll((v) => !v)}
            disabled={runs.isPlaceholderData}
          >
            {all ? "Show the last five" : "Show all"}
          </button>
          {all && runs.data.length >= RUNS_ALL_LIMIT ? (
            <span className="text-stone-600 dark:text-stone-400">The latest {RUNS_ALL_LIMIT} runs.</span>
          ) : null}
        </div>
      ) : null}
      <CountedDays trackerId={trackerId} />
    </>
  );
}

/**
 * Days with checks counted rather than kept as runs (scheduled unchanged checks, and runs past RUN_RETENTION_DAYS):
 * one line each. Nothing while none are.
 */
function CountedDays({ trackerId }: { trackerId: string }) {
  const trpc = useTRPC();
  const days = useQuery(trpc.tracker.prunedRunDays.queryOptions({ trackerId, limit: PRUNED_DAYS_LIMIT }));
  if (!days.data?.length) return null;
  return (
    <section data-testid="pruned-run-days" className="mt-3 text-xs text-stone-600 dark:text-stone-400">
      <h3 className="font-medium">Unchanged checks, counted per day (UTC)</h3>
      <ul>
        {days.data.map((d) => (
          <li key={d.day}>
            <LocalDay day={d.day} /> · {d.unchanged} unchanged
            {d.skipped ? ` · ${d.skipped} skipped` : ""} · {d.modelCalls} model call(s)
          </li>
        ))}
      </ul>
    </section>
  );
}

function RunList({ runs }: { runs: TRefreshRunView[] }) {
  return (
    <ol id="runs-log" data-testid="runs-log" className="divide-y divide-stone-200 text-sm dark:divide-stone-800">
      {runs.map((run) => (
        <li key={run.id} data-testid="run-row" data-status={run.status} className="py-2">
          <details>
            <summary className="cursor-pointer">
              <span className="font-medium">{run.status}</span> · {run.trigger} · <LocalTime value={run.createdAt} />
              {run.durationMs !== null ? ` · ${run.durationMs.toLocaleString("en-US")} ms` : ""} · {run.modelCalls}{" "}
              model call(s)
              {run.summary ? (
                <span className="block text-xs text-stone-600 dark:text-stone-400">{run.summary}</span>
              ) : null}
            </summary>
            {run.error ? (
              <p className="mt-1 text-xs text-red-700 dark:text-red-400">
                {run.error.code}: {run.error.message}
              </p>
            ) : null}
            <div className="overflow-x-auto">
              <table className="mt-2 text-xs">
                <thead>
                  <tr className="text-left text-stone-600 dark:text-stone-400">
                    <th className="pr-4 font-medium">Step</th>
                    <th className="pr-4 font-medium">Status</th>
                    <th className="pr-4 font-medium">Time</th>
                    <th className="font-medium">Detail</th>
                  </tr>
                </thead>
                <tbody>
                  {run.steps.map((s) => (
                    <tr key={s.step}>
                      <td className="pr-4 font-mono">{s.step}</td>
                      <td className="pr-4">{s.status}</td>
                      <td className="pr-4">{s.ms.toLocaleString("en-US")} ms</td>
                      <td className="break-all">{s.detail ?? ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </li>
      ))}
    </ol>
  );
}

"use client";

import { useQuery } from "@tanstack/react-query";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import type { TRefreshRunView } from "@/contracts/trackers";

/**
 * The runs log: trigger, status, duration, model calls, error, and each run's steps; below it, older unchanged checks
 * that retention summed per day.
 */
export function RunsLog({ trackerId }: { trackerId: string }) {
  const trpc = useTRPC();
  const runs = useQuery(trpc.tracker.runs.queryOptions({ trackerId, limit: 20 }));
  if (runs.isPending) return <p role="status">Loading runs…</p>;
  if (runs.isError) return <p role="alert">Could not load runs: {runs.error.message}</p>;
  if (runs.data.length === 0) return <p className="text-sm text-stone-600">No runs yet.</p>;
  return (
    <>
      <RunList runs={runs.data} />
      <PrunedDays trackerId={trackerId} />
    </>
  );
}

/** Days whose unchanged checks were pruned (RUN_RETENTION_DAYS): one line each. Nothing while none are. */
function PrunedDays({ trackerId }: { trackerId: string }) {
  const trpc = useTRPC();
  const days = useQuery(trpc.tracker.prunedRunDays.queryOptions({ trackerId, limit: 14 }));
  if (!days.data?.length) return null;
  return (
    <section data-testid="pruned-run-days" className="mt-3 text-xs text-stone-600 dark:text-stone-400">
      <h3 className="font-medium">Older checks, summed per day (UTC)</h3>
      <ul>
        {days.data.map((d) => (
          <li key={d.day}>
            <time dateTime={d.day}>{d.day}</time> · {d.unchanged} unchanged
            {d.skipped ? ` · ${d.skipped} skipped` : ""} · {d.modelCalls} model call(s)
          </li>
        ))}
      </ul>
    </section>
  );
}

function RunList({ runs }: { runs: TRefreshRunView[] }) {
  return (
    <ol data-testid="runs-log" className="divide-y divide-stone-200 text-sm dark:divide-stone-800">
      {runs.map((run) => (
        <li key={run.id} data-testid="run-row" data-status={run.status} className="py-2">
          <details>
            <summary className="cursor-pointer">
              <span className="font-medium">{run.status}</span> · {run.trigger} · <LocalTime value={run.createdAt} />
              {run.durationMs !== null ? ` · ${run.durationMs} ms` : ""} · {run.modelCalls} model call(s)
              {run.summary ? (
                <span className="block text-xs text-stone-600 dark:text-stone-400">{run.summary}</span>
              ) : null}
            </summary>
            {run.error ? (
              <p className="mt-1 text-xs text-red-700 dark:text-red-400">
                {run.error.code}: {run.error.message}
              </p>
            ) : null}
            <table className="mt-2 text-xs">
              <thead>
                <tr className="text-left text-stone-500">
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
                    <td className="pr-4">{s.ms} ms</td>
                    <td className="break-all">{s.detail ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </li>
      ))}
    </ol>
  );
}

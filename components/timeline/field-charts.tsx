"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc";
import { FieldChart } from "./field-chart";

/** One small chart per numeric field, from the recorded timeline. */
export function FieldCharts({ trackerId }: { trackerId: string }) {
  const trpc = useTRPC();
  const series = useQuery(trpc.tracker.series.queryOptions({ trackerId }));
  if (series.isPending) return <p role="status">Loading charts…</p>;
  if (series.isError) return <p role="alert">Could not load charts: {series.error.message}</p>;
  if (series.data.length === 0) return <p className="text-sm text-stone-600">No numeric fields recorded yet.</p>;
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
      {series.data.map((s) => (
        <FieldChart key={s.field} field={s.field} points={s.points} />
      ))}
    </div>
  );
}

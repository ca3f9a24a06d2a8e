"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc";
import { FieldChart } from "./field-chart";

/**
 * One chart per numeric field: the recorded timeline (baseline and changes; material ones marked) and what the
 * source says now. The series arrive with the page (prefetched on the server), so the cards have their size at
 * once; each plot is drawn into its fixed-height box after hydration.
 */
export function FieldCharts({ trackerId }: { trackerId: string }) {
  const trpc = useTRPC();
  const series = useQuery(trpc.tracker.series.queryOptions({ trackerId }));
  if (series.isPending) return <p role="status">Loading charts…</p>;
  if (series.isError) return <p role="alert">Could not load charts: {series.error.message}</p>;
  if (series.data.length === 0) {
    return <p className="text-sm text-stone-600 dark:text-stone-400">No numeric fields recorded yet.</p>;
  }
  return (
    // Two columns only when there are two charts: one chart takes the card's whole width.
    <div className={`grid grid-cols-1 gap-3 ${series.data.length > 1 ? "xl:grid-cols-2" : ""}`}>
      {series.data.map((s) => (
        <FieldChart key={s.field} series={s} />
      ))}
    </div>
  );
}

"use client";

import { useQuery } from "@tanstack/react-query";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import type { TValueFormat } from "@/contracts/definition/format-value";
import { TimelineEntry } from "./timeline-entry";

/**
 * "Lock with history" (docs/replay.md): what the version in force would have recorded over the stored pages, when the
 * person asked for it — folded under the timeline, whose entries stay as recorded under the versions of their day.
 * Nothing is shown until history was re-judged.
 */
export function RejudgedHistory({ trackerId, formats }: { trackerId: string; formats: Record<string, TValueFormat> }) {
  const trpc = useTRPC();
  const history = useQuery(trpc.tracker.rejudged.queryOptions({ trackerId }));
  if (!history.data || history.data.version === null) return null;
  const { version, at, entries } = history.data;
  const material = entries.filter((e) => e.materiality === "material").length;
  return (
    <details
      data-testid="rejudged-history"
      className="mt-4 rounded-md border border-stone-200 p-3 dark:border-stone-800"
    >
      <summary className="cursor-pointer text-sm font-medium">
        Re-judged under v{version}
        {at ? (
          <>
            {" "}
            on <LocalTime value={at} />
          </>
        ) : null}
        : {material} material, {entries.length - material} notable
      </summary>
      <p className="mt-2 text-xs text-stone-600 dark:text-stone-400">
        What definition v{version} would have recorded over the pages stored before it was locked. The timeline above
        keeps the entries as they were recorded at the time.
      </p>
      {entries.length === 0 ? (
        <p className="mt-2 text-sm">Under v{version}, none of those pages would have been worth recording.</p>
      ) : (
        <ol className="divide-y divide-stone-200 dark:divide-stone-800">
          {entries.map((e) => (
            <TimelineEntry
              key={e.id}
              entry={{ ...e, id: `rejudged-${e.id}`, definitionVersion: e.version }}
              formats={formats}
            />
          ))}
        </ol>
      )}
    </details>
  );
}

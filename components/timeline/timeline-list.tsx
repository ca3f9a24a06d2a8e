"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc";
import { buttonSecondary } from "@/components/ui/button-styles";
import { TimelineEntry, type TTimelineEntryView } from "./timeline-entry";

const PAGE_SIZE = 20;

/** The tracker's timeline, newest first, a page at a time. */
export function TimelineList({ trackerId }: { trackerId: string }) {
  const trpc = useTRPC();
  const timeline = useInfiniteQuery(
    trpc.tracker.timeline.infiniteQueryOptions(
      { trackerId, limit: PAGE_SIZE },
      { getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  if (timeline.isPending) return <p role="status">Loading the timeline…</p>;
  if (timeline.isError) {
    return (
      <p role="alert" className="text-sm text-red-700">
        Could not load the timeline: {timeline.error.message}
      </p>
    );
  }
  const entries = timeline.data.pages.flatMap((p) => p.items) as TTimelineEntryView[];
  if (entries.length === 0) {
    return <p className="text-sm text-stone-600">Nothing recorded yet. The first refresh records the baseline.</p>;
  }
  return (
    <div>
      <ol data-testid="timeline" className="divide-y divide-stone-200 dark:divide-stone-800">
        {entries.map((e) => (
          <TimelineEntry key={e.id} entry={e} />
        ))}
      </ol>
      {timeline.hasNextPage ? (
        <button
          type="button"
          className={`${buttonSecondary} mt-3`}
          disabled={timeline.isFetchingNextPage}
          onClick={() => timeline.fetchNextPage()}
        >
          {timeline.isFetchingNextPage ? "Loading…" : "Older entries"}
        </button>
      ) : null}
    </div>
  );
}

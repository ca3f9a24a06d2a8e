"use client";

import { skipToken, useInfiniteQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { TIMELINE_PAGE_SIZE } from "@/components/trackers/page-queries";
import { buttonSecondary } from "@/components/ui/button-styles";
import type { TValueFormat } from "@/contracts/definition/format-value";
import { TimelineEntry, type TTimelineEntryView } from "./timeline-entry";

// The page prefetches the first page on the server with the same key.
const PAGE_SIZE = TIMELINE_PAGE_SIZE;

/** "2026-11-29" (a date input's value) → that day's local midnight; "" or garbage → null. */
function parseDay(value: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return null;
  const day = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(day.getTime()) ? null : day;
}

/** The range the dates ask for: from the start of "from" up to the end of "to" (both days included). */
function toWindow(from: string, to: string): { from?: Date; to?: Date } | { error: string } {
  const start = parseDay(from);
  const end = parseDay(to);
  const endExclusive = end ? new Date(end.getFullYear(), end.getMonth(), end.getDate() + 1) : null;
  if (start && end && start > end) return { error: "The start date must not be after the end date." };
  return { ...(start ? { from: start } : {}), ...(endExclusive ? { to: endExclusive } : {}) };
}

/**
 * The tracker's timeline, newest first, a page at a time, optionally within a date range. Values are formatted by
 * the definition's field `formats`; the definition version is named only where it changes.
 */
export function TimelineList({
  trackerId,
  formats = {},
}: {
  trackerId: string;
  formats?: Record<string, TValueFormat>;
}) {
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const range = toWindow(from, to);
  const filtered = Boolean(from || to);
  return (
    <div className="space-y-3">
      <DateRange from={from} to={to} onFrom={setFrom} onTo={setTo} />
      {"error" in range ? (
        <p role="alert" data-testid="timeline-range-error" className="text-sm text-red-700 dark:text-red-400">
          {range.error}
        </p>
      ) : null}
      <TimelineEntries
        trackerId={trackerId}
        range={"error" in range ? null : range}
        filtered={filtered}
        formats={formats}
      />
    </div>
  );
}

function DateRange({
  from,
  to,
  onFrom,
  onTo,
}: {
  from: string;
  to: string;
  onFrom: (v: string) => void;
  onTo: (v: string) => void;
}) {
  const id = useId();
  const input = "rounded-md border border-stone-300 bg-white px-2 py-1 text-sm dark:border-stone-700 dark:bg-stone-900";
  return (
    <fieldset className="flex flex-wrap items-end gap-3 text-sm" data-testid="timeline-range">
      <legend className="sr-only">Show entries between dates</legend>
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-from`}>From</label>
        <input
          id={`${id}-from`}
          type="date"
          className={input}
          value={from}
          max={to || undefined}
          onChange={(e) => onFrom(e.target.value)}
        />
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-to`}>To</label>
        <input
          id={`${id}-to`}
          type="date"
          className={input}
          value={to}
          min={from || undefined}
          onChange={(e) => onTo(e.target.value)}
        />
      </div>
      {from || to ? (
        <button
          type="button"
          className={buttonSecondary}
          onClick={() => {
            onFrom("");
            onTo("");
          }}
        >
          Clear dates
        </button>
      ) : null}
    </fieldset>
  );
}

function TimelineEntries({
  trackerId,
  range,
  filtered,
  formats,
}: {
  trackerId: string;
  range: { from?: Date; to?: Date } | null;
  filtered: boolean;
  formats: Record<string, TValueFormat>;
}) {
  const trpc = useTRPC();
  const timeline = useInfiniteQuery(
    trpc.tracker.timeline.infiniteQueryOptions(range ? { trackerId, limit: PAGE_SIZE, ...range } : skipToken, {
      getNextPageParam: (last) => last.nextCursor ?? undefined,
    }),
  );
  if (!range) return null;
  if (timeline.isPending) return <p role="status">Loading the timeline…</p>;
  if (timeline.isError) {
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-400">
        Could not load the timeline: {timeline.error.message}
      </p>
    );
  }
  const entries = timeline.data.pages.flatMap((p) => p.items) as TTimelineEntryView[];
  if (entries.length === 0) {
    return (
      <p data-testid="timeline-empty" className="text-sm text-stone-600 dark:text-stone-400">
        {filtered ? "No entries in this date range." : "Nothing recorded yet. The first refresh records the baseline."}
      </p>
    );
  }
  return (
    <div>
      <ol data-testid="timeline" className="divide-y divide-stone-200 dark:divide-stone-800">
        {entries.map((e, i) => {
          const older = entries[i + 1];
          return (
            <TimelineEntry
              key={e.id}
              entry={e}
              formats={formats}
              versionStarts={older !== undefined && older.definitionVersion !== e.definitionVersion}
            />
          );
        })}
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

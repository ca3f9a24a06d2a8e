"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { buttonSecondary } from "@/components/ui/button-styles";
import { EmptyState } from "@/components/ui/empty-state";
import type { TFeedItem } from "@/contracts/feed-item";
import { FeedCard } from "./feed-card";
import { FeedAsOfContext } from "./feed-registry";

const SOURCE_NAMES: Record<string, string> = {
  trackers: "Trackers",
  weather: "Weather",
  calendar: "Calendar",
  location: "Location",
};

/** Consecutive items sharing a groupKey render inside one group. */
function groupRuns(items: TFeedItem[]): { key: string; items: TFeedItem[]; grouped: boolean }[] {
  const runs: { key: string; items: TFeedItem[]; grouped: boolean }[] = [];
  for (const item of items) {
    const last = runs.at(-1);
    if (item.groupKey && last?.grouped && last.key === item.groupKey) last.items.push(item);
    else runs.push({ key: item.groupKey ?? item.id, items: [item], grouped: Boolean(item.groupKey) });
  }
  return runs;
}

export function FeedView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const feed = useQuery(trpc.feed.get.queryOptions());
  const [live, setLive] = useState<"connecting" | "live" | "offline">("connecting");
  // Live reloads are announced politely (a polite live region, docs/testing.md); the count makes a repeated message new to screen readers.
  const [updates, setUpdates] = useState(0);

  useSubscription(
    trpc.feed.live.subscriptionOptions(undefined, {
      onStarted: () => setLive("live"),
      onData: () => {
        // An enhancement finished or a tracker changed: reload in place, then say so.
        void queryClient.invalidateQueries({ queryKey: trpc.feed.get.queryKey() }).then(() => setUpdates((n) => n + 1));
      },
      onError: () => setLive("offline"),
    }),
  );

  const refresh = useMutation(
    trpc.feed.refresh.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.feed.get.queryKey(), data),
    }),
  );

  if (feed.isPending) {
    return (
      <p role="status" className="text-sm text-stone-600 dark:text-stone-400">
        Loading your feed…
      </p>
    );
  }
  if (feed.isError) {
    return (
      <div role="alert" className="rounded-md border border-red-300 p-4 text-sm text-red-800 dark:text-red-200">
        The feed could not be loaded: {feed.error.message}{" "}
        <button type="button" className="underline" onClick={() => void feed.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  const { items, errors, generatedAt } = feed.data;
  return (
    <FeedAsOfContext.Provider value={generatedAt}>
      <div className="space-y-4" data-testid="feed" data-live={live}>
        <p role="status" className="sr-only" data-testid="feed-announcer">
          {updates > 0 ? `The feed was updated${updates % 2 ? "." : " again."}` : ""}
        </p>
        <div className="flex flex-wrap items-center gap-2">
          <button
            type="button"
            className={buttonSecondary}
            onClick={() => refresh.mutate()}
            disabled={refresh.isPending}
            data-testid="feed-refresh"
          >
            {refresh.isPending ? "Refreshing…" : "Refresh"}
          </button>
          {refresh.isError ? (
            <span role="alert" className="text-xs text-red-700 dark:text-red-300">
              Refresh failed: {refresh.error.message}
            </span>
          ) : null}
        </div>
        {errors.length > 0 ? (
          // A source that could not answer is a calm line with its reason (docs/feed.md), not an alarm.
          <ul className="space-y-1 text-sm text-stone-600 dark:text-stone-400" aria-label="Sources with problems">
            {errors.map((e) => (
              <li key={e.sourceId} data-testid="source-error">
                {SOURCE_NAMES[e.sourceId] ?? e.sourceId}: {e.message}
              </li>
            ))}
          </ul>
        ) : null}
        {items.length === 0 ? (
          <EmptyState
            title="Nothing to show yet"
            action={{ href: "/trackers/new", label: "Create your first tracker" }}
          >
            <p>
              Start with a decision you need to stay on top of and point Bellwether at the page or place that answers
              it. Material changes will appear here; add a location or calendar in Settings for weather and events.
            </p>
          </EmptyState>
        ) : (
          <ol className="space-y-4" aria-label="Feed">
            {groupRuns(items).map((run) => (
              <li key={run.key}>
                {run.grouped ? (
                  <section
                    aria-label={`${run.items.length} updates`}
                    data-testid="feed-group"
                    className="space-y-2 border-l-2 border-stone-300 pl-3 dark:border-stone-700"
                  >
                    {run.items.map((item) => (
                      <FeedCard key={item.id} item={item} />
                    ))}
                  </section>
                ) : (
                  run.items.map((item) => <FeedCard key={item.id} item={item} />)
                )}
              </li>
            ))}
          </ol>
        )}
      </div>
    </FeedAsOfContext.Provider>
  );
}

"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { buttonSecondary, focusRing } from "@/components/ui/button-styles";
import { UnfinishedSetupRow } from "./unfinished-setup-row";

/**
 * The person's unfinished setups — one list, the same on /trackers and /trackers/new (docs/trackers.md, "Unfinished
 * setups"): new trackers not locked yet (with their address, or "No address yet"), and edits of live trackers
 * ("Editing v2 of …", marked apart), each with its last activity, Resume and Discard. Prefetched on the server by both
 * pages. `shownAtFirst` shows the most recent few with "Show all" (the setup page keeps the chat in view); nothing is
 * rendered when there are none.
 */
export function UnfinishedSetups({ shownAtFirst, intro }: { shownAtFirst?: number; intro: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.tracker.unfinishedSetups.queryOptions());
  const [expanded, setExpanded] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const headingId = useId();
  const listId = useId();

  const status = (
    <p role="status" aria-live="polite" className="sr-only" data-testid="unfinished-setups-status">
      {announcement}
    </p>
  );
  if (list.isPending) {
    return (
      <div role="status" aria-live="polite" className="h-20 animate-pulse rounded-xl bg-stone-100 dark:bg-stone-900">
        <span className="sr-only">Loading unfinished setups…</span>
      </div>
    );
  }
  if (list.isError) {
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-400">
        Could not load your unfinished setups: {list.error.message}
      </p>
    );
  }
  const { setups, asOf } = list.data;
  if (setups.length === 0) return status;
  const limit = shownAtFirst && !expanded ? shownAtFirst : setups.length;
  const shown = setups.slice(0, limit);

  return (
    <section aria-labelledby={headingId} data-testid="unfinished-setups" className="space-y-3">
      {status}
      <div>
        <h2 id={headingId} className="text-lg font-semibold">
          Unfinished setups <span className="text-stone-600 dark:text-stone-400">({setups.length})</span>
        </h2>
        <p className="text-sm text-stone-600 dark:text-stone-400">{intro}</p>
      </div>
      <ul
        id={listId}
        className="divide-y divide-stone-200 rounded-xl border border-stone-200 bg-white dark:divide-stone-800 dark:border-stone-800 dark:bg-stone-900"
      >
        {shown.map((setup) => (
          <UnfinishedSetupRow key={setup.key} setup={setup} asOf={asOf} onDone={setAnnouncement} />
        ))}
      </ul>
      {setups.length > limit || expanded ? (
        <button
          type="button"
          className={`${buttonSecondary} ${focusRing}`}
          aria-expanded={expanded}
          aria-controls={listId}
          onClick={() => setExpanded((now) => !now)}
        >
          {expanded ? "Show fewer" : `Show all ${setups.length}`}
        </button>
      ) : null}
    </section>
  );
}

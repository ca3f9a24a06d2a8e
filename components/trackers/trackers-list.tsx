"use client";

import Link from "next/link";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import { EmptyState } from "@/components/ui/empty-state";
import { BulkActions, BulkNotices } from "./bulk-actions";
import { formatCount, listHref } from "./tracker-filters";
import { TrackerRow } from "./tracker-row";
import { TrackersToolbar } from "./trackers-toolbar";
import { useTrackersList } from "./use-trackers-list";

/**
 * The trackers page: the trackers the address asks for (`?show=…&q=…`), a page at a time with "Load more", each with
 * what its source says now and its last material change (select several to pause, resume or archive them), then the
 * unfinished setups apart (Resume / Discard). The first page is prefetched on the server with the same input, so the
 * first paint has the content and it reads without JavaScript (app/trackers/page.tsx; docs/trackers.md).
 */
export function TrackersList() {
  const view = useTrackersList();
  const { list, bulk, shown, chosen, first, params } = view;

  if (list.isPending) {
    return (
      <div role="status" className="space-y-3" aria-live="polite">
        <span className="sr-only">Loading trackers…</span>
        {[0, 1, 2].map((i) => (
          <div key={i} className="h-28 animate-pulse rounded-xl bg-stone-100 dark:bg-stone-900" />
        ))}
      </div>
    );
  }
  if (list.isError || !first) {
    return (
      <p role="alert" className="text-red-700 dark:text-red-400">
        Could not load trackers: {list.error?.message ?? "no answer"}
      </p>
    );
  }
  const { drafts, asOf, counts, total } = first;
  const nextCursor = list.data.pages.at(-1)?.nextCursor ?? null;
  const searching = params.q !== "";

  const status = (
    <p role="status" aria-live="polite" className="sr-only">
      {view.announcement}
    </p>
  );

  if (!searching && !params.after && counts.all === 0 && drafts.length === 0) {
    return (
      <>
        {status}
        <EmptyState title="No trackers yet" action={{ href: "/trackers/new", label: "Create your first tracker" }}>
          <p>
            A tracker pairs a decision with a source — a web page or a Google Maps place. Bellwether drafts what to
            watch from one real sample, you confirm it, and from then on only changes that matter are recorded.
          </p>
        </EmptyState>
      </>
    );
  }

  return (
    <div className="space-y-10">
      {status}

      <section aria-labelledby="trackers-heading" className="space-y-3">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="trackers-heading" className="text-lg font-semibold">
            Your trackers
          </h2>
          <Link href="/trackers/new" className={buttonPrimary}>
            New tracker
          </Link>
        </div>
        {!searching && counts.all === 0 ? (
          <p className="text-sm text-stone-600 dark:text-stone-400">
            No tracker is running yet: resume an unfinished setup below and lock it, or{" "}
            <Link href="/trackers/new" className="underline">
              start a new one
            </Link>
            .
          </p>
        ) : (
          <>
            <TrackersToolbar
              params={params}
              counts={counts}
              onChoose={view.choose}
              shownCount={shown.length}
              chosenCount={chosen.length}
              allChosen={view.allChosen}
              onSelectAll={view.setAll}
            />

            {chosen.length > 0 ? (
              <BulkActions
                count={chosen.length}
                pending={bulk.isPending}
                confirmArchive={view.confirmArchive}
                confirmRef={view.archiveConfirmRef}
                onAct={view.act}
                onConfirmArchive={view.setConfirmArchive}
                onClear={() => view.setAll(false)}
              />
            ) : null}
            <BulkNotices refused={bulk.data?.refused} error={bulk.isError ? bulk.error : null} />

            {shown.length === 0 ? (
              <p className="text-sm text-stone-600 dark:text-stone-400" data-testid="trackers-no-match">
                {searching ? <>No tracker matches “{params.q}” here. </> : <>No trackers match this filter. </>}
                {params.show !== "all" || searching ? (
                  <Link href={listHref({ show: "all", q: "" })} className="underline">
                    Show all trackers
                  </Link>
                ) : null}
              </p>
            ) : (
              <ul
                className={`divide-y divide-stone-200 rounded-xl border border-stone-200 bg-white dark:divide-stone-800 dark:border-stone-800 dark:bg-stone-900 ${list.isPlaceholderData ? "opacity-60" : ""}`}
              >
                {shown.map((t) => (
                  <TrackerRow
                    key={t.id}
                    tracker={t}
                    asOf={asOf}
                    selected={view.selected.has(t.id)}
                    onToggle={() => view.toggle(t.id)}
                  />
                ))}
              </ul>
            )}
            <div className="flex flex-wrap items-center gap-3 text-sm">
              <p className="text-stone-600 dark:text-stone-400" data-testid="trackers-shown-count">
                Showing {formatCount(shown.length)} of {formatCount(total)}
                {params.after ? " (from an earlier page on)" : ""}
              </p>
              {nextCursor ? (
                // A link to the next page for a browser without JavaScript; with it, the next page is added below.
                <a
                  href={listHref({ ...params, after: nextCursor })}
                  className={buttonSecondary}
                  aria-disabled={list.isFetchingNextPage}
                  onClick={(e) => {
                    e.preventDefault();
                    if (!list.isFetchingNextPage) void list.fetchNextPage();
                  }}
                >
                  {list.isFetchingNextPage ? "Loading…" : "Load more"}
                </a>
              ) : null}
              {params.after ? (
                <Link href={listHref({ ...params, after: null })} className="underline">
                  Back to the newest
                </Link>
              ) : null}
            </div>
          </>
        )}
      </section>
    </div>
  );
}

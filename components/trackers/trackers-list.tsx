"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { buttonDanger, buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import { EmptyState } from "@/components/ui/empty-state";
import type { TTrackerListItem } from "@/contracts/trackers";
import { DraftsList } from "./drafts-list";
import { formatSchedule } from "./format";
import { RelativeTime } from "./relative-time";
import { StatusBadge } from "./status-badge";

const FILTERS = [
  { value: "current", label: "Current" },
  { value: "active", label: "Active" },
  { value: "failing", label: "Failing" },
  { value: "needs_attention", label: "Needs attention" },
  { value: "paused", label: "Paused" },
  { value: "archived", label: "Archived" },
  { value: "all", label: "All" },
] as const;
type TFilter = (typeof FILTERS)[number]["value"];

function matches(t: TTrackerListItem, filter: TFilter): boolean {
  switch (filter) {
    case "current":
      return t.status !== "archived";
    case "failing":
      return t.failing;
    case "needs_attention":
      return t.needsAttention;
    case "all":
      return true;
    default:
      return t.status === filter;
  }
}

/**
 * The trackers page: every tracker with what its source says now and its last material change (select several to
 * pause, resume or archive them), then the unfinished setups apart (Resume / Discard). Prefetched on the server, so the
 * first paint has the content (app/trackers/page.tsx).
 */
export function TrackersList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState<TFilter>("current");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirmArchive, setConfirmArchive] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const archiveConfirmRef = useRef<HTMLButtonElement>(null);
  const list = useQuery(trpc.tracker.listView.queryOptions());
  const bulk = useMutation(
    trpc.tracker.setStatusMany.mutationOptions({
      onSuccess: (result, input) => {
        setSelected(new Set());
        setConfirmArchive(false);
        const verb = input.status === "archived" ? "archived" : input.status === "paused" ? "paused" : "resumed";
        const n = result.updated.length;
        setAnnouncement(`${n} tracker${n === 1 ? "" : "s"} ${verb}.`);
        return queryClient.invalidateQueries({ queryKey: trpc.tracker.pathKey() });
      },
    }),
  );
  useEffect(() => {
    if (confirmArchive) archiveConfirmRef.current?.focus();
  }, [confirmArchive]);

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
  if (list.isError) {
    return (
      <p role="alert" className="text-red-700 dark:text-red-400">
        Could not load trackers: {list.error.message}
      </p>
    );
  }
  const { trackers, drafts, asOf } = list.data;
  const shown = trackers.filter((t) => matches(t, filter));
  const chosen = shown.filter((t) => selected.has(t.id));
  const allChosen = shown.length > 0 && chosen.length === shown.length;

  const toggle = (id: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const setAll = (on: boolean) => setSelected(on ? new Set(shown.map((t) => t.id)) : new Set());
  const act = (status: "active" | "paused" | "archived") =>
    bulk.mutate({ trackerIds: chosen.map((t) => t.id), status });

  const status = (
    <p role="status" aria-live="polite" className="sr-only">
      {announcement}
    </p>
  );

  if (trackers.length === 0 && drafts.length === 0) {
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
        {trackers.length === 0 ? (
          <p className="text-sm text-stone-600 dark:text-stone-400">
            No tracker is running yet: resume an unfinished setup below and lock it, or{" "}
            <Link href="/trackers/new" className="underline">
              start a new one
            </Link>
            .
          </p>
        ) : (
          <>
            <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
              <label className="text-sm">
                <span className="mr-2 font-medium">Show</span>
                <select
                  value={filter}
                  onChange={(e) => {
                    setFilter(e.target.value as TFilter);
                    setSelected(new Set());
                    setConfirmArchive(false);
                  }}
                  className="rounded-md border border-stone-300 bg-white px-2 py-1 dark:border-stone-700 dark:bg-stone-900"
                >
                  {FILTERS.map((f) => (
                    <option key={f.value} value={f.value}>
                      {f.label}
                    </option>
                  ))}
                </select>
              </label>
              {shown.length > 0 ? (
                <label className="flex min-h-11 items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    className="h-5 w-5"
                    checked={allChosen}
                    ref={(el) => {
                      if (el) el.indeterminate = chosen.length > 0 && !allChosen;
                    }}
                    onChange={(e) => setAll(e.target.checked)}
                  />
                  Select all
                </label>
              ) : null}
            </div>

            {chosen.length > 0 ? (
              <fieldset
                className="flex flex-wrap items-center gap-2 rounded-lg border border-stone-300 bg-stone-50 p-3 dark:border-stone-700 dark:bg-stone-900"
                data-testid="bulk-actions"
              >
                <legend className="sr-only">With the selected trackers</legend>
                <span className="mr-2 text-sm font-medium">{chosen.length} selected</span>
                {confirmArchive ? (
                  <>
                    <span className="text-sm">
                      Archive {chosen.length} tracker{chosen.length === 1 ? "" : "s"}? Archived trackers stop refreshing
                      and cannot be resumed.
                    </span>
                    <button
                      ref={archiveConfirmRef}
                      type="button"
                      className={buttonDanger}
                      disabled={bulk.isPending}
                      onClick={() => act("archived")}
                    >
                      Archive {chosen.length}
                    </button>
                    <button type="button" className={buttonSecondary} onClick={() => setConfirmArchive(false)}>
                      Cancel
                    </button>
                  </>
                ) : (
                  <>
                    <button
                      type="button"
                      className={buttonSecondary}
                      disabled={bulk.isPending}
                      onClick={() => act("paused")}
                    >
                      Pause
                    </button>
                    <button
                      type="button"
                      className={buttonSecondary}
                      disabled={bulk.isPending}
                      onClick={() => act("active")}
                    >
                      Resume
                    </button>
                    <button
                      type="button"
                      className={buttonSecondary}
                      disabled={bulk.isPending}
                      onClick={() => setConfirmArchive(true)}
                    >
                      Archive…
                    </button>
                    <button type="button" className={buttonSecondary} onClick={() => setAll(false)}>
                      Clear selection
                    </button>
                  </>
                )}
              </fieldset>
            ) : null}
            {bulk.data?.refused.length ? (
              <p role="alert" className="text-sm text-amber-800 dark:text-amber-300">
                {bulk.data.refused.length} tracker(s) not changed: {bulk.data.refused.map((r) => r.message).join(" ")}
              </p>
            ) : null}
            {bulk.isError ? (
              <p role="alert" className="text-sm text-red-700 dark:text-red-400">
                {bulk.error.message}
              </p>
            ) : null}

            {shown.length === 0 ? (
              <p className="text-sm text-stone-600 dark:text-stone-400">No trackers match this filter.</p>
            ) : (
              <ul className="divide-y divide-stone-200 rounded-xl border border-stone-200 bg-white dark:divide-stone-800 dark:border-stone-800 dark:bg-stone-900">
                {shown.map((t) => (
                  <TrackerRow
                    key={t.id}
                    tracker={t}
                    asOf={asOf}
                    selected={selected.has(t.id)}
                    onToggle={() => toggle(t.id)}
                  />
                ))}
              </ul>
            )}
          </>
        )}
      </section>
      <DraftsList drafts={drafts} asOf={asOf} onDiscarded={(title) => setAnnouncement(`Discarded “${title}”.`)} />
    </div>
  );
}

function TrackerRow({
  tracker: t,
  asOf,
  selected,
  onToggle,
}: {
  tracker: TTrackerListItem;
  asOf: Date;
  selected: boolean;
  onToggle: () => void;
}) {
  return (
    <li className="flex gap-3 p-4" data-testid="tracker-row" data-tracker-id={t.id}>
      <label className="-m-2 flex h-9 w-9 shrink-0 items-center justify-center">
        <input type="checkbox" className="h-5 w-5" checked={selected} onChange={onToggle} />
        <span className="sr-only">Select “{t.decision}”</span>
      </label>
      <div className="min-w-0 flex-1 space-y-2">
        <div>
          <div className="flex flex-wrap items-center gap-2">
            <Link href={`/trackers/${t.id}`} className="font-medium break-words underline-offset-2 hover:underline">
              {t.decision}
            </Link>
            <StatusBadge status={t.status} failing={t.failing} needsAttention={t.needsAttention} />
            {t.fields ? (
              <span className="text-xs text-stone-600 dark:text-stone-400" data-testid="tracker-fields-read">
                reads {t.fields.read} of {t.fields.total}
              </span>
            ) : null}
          </div>
          <p className="truncate text-xs text-stone-600 dark:text-stone-400" title={t.target}>
            {t.target}
          </p>
        </div>
        {t.failing && t.lastError ? (
          <p className="text-xs text-red-700 dark:text-red-400">Last error: {t.lastError}</p>
        ) : null}
        {!t.failing && t.needsAttention && t.attentionReason ? (
          <p className="text-xs text-amber-800 dark:text-amber-300" data-testid="tracker-attention">
            Needs attention: {t.attentionReason}
          </p>
        ) : null}
        {t.values.length > 0 ? (
          <dl className="flex flex-wrap gap-x-5 gap-y-1 text-sm" data-testid="tracker-values">
            {t.values.map((v) => (
              <div key={v.name} className="flex gap-1.5" data-field-name={v.name}>
                <dt className="text-stone-600 dark:text-stone-400">{v.label}</dt>
                <dd className="font-medium tabular-nums">{v.text}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <p className="text-sm text-stone-600 dark:text-stone-400" data-testid="tracker-values">
            No data yet — the first refresh records what the source says.
          </p>
        )}
        <div className="text-sm" data-testid="tracker-last-change">
          {t.lastChange ? (
            <p>
              <span className="text-stone-600 dark:text-stone-400">Last material change </span>
              <RelativeTime
                value={t.lastChange.capturedAt}
                asOf={asOf}
                className="text-stone-600 dark:text-stone-400"
              />
              <span className="text-stone-600 dark:text-stone-400">: </span>
              {t.lastChange.fields.map((f, i) => (
                <span key={f.name}>
                  {i > 0 ? "; " : ""}
                  {f.label} <span className="tabular-nums">{f.text}</span>
                </span>
              ))}
            </p>
          ) : (
            <p className="text-stone-600 dark:text-stone-400">No material change yet.</p>
          )}
        </div>
        <dl className="grid grid-cols-1 gap-x-4 text-xs text-stone-600 sm:grid-cols-3 dark:text-stone-400">
          <div>
            <dt className="inline font-medium">Last checked: </dt>
            <dd className="inline">
              <LocalTime value={t.lastRunAt} empty="not yet" />
            </dd>
          </div>
          <div>
            <dt className="inline font-medium">Next run: </dt>
            <dd className="inline">
              <LocalTime value={t.nextRunAt} />
              {t.overdue ? (
                <span className="ml-1 font-medium text-amber-800 dark:text-amber-300" data-testid="tracker-row-overdue">
                  (overdue)
                </span>
              ) : null}
            </dd>
          </div>
          <div>
            <dt className="inline font-medium">Schedule: </dt>
            <dd className="inline">{formatSchedule(t.scheduleMinutes)}</dd>
          </div>
        </dl>
      </div>
    </li>
  );
}

"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import { EmptyState } from "@/components/ui/empty-state";
import { formatSchedule } from "./format";
import { StatusBadge } from "./status-badge";

const FILTERS = [
  { value: "", label: "All" },
  { value: "active", label: "Active" },
  { value: "failing", label: "Failing" },
  { value: "paused", label: "Paused" },
  { value: "draft", label: "Draft" },
  { value: "archived", label: "Archived" },
] as const;
type TFilter = (typeof FILTERS)[number]["value"];

/** Every tracker with its status, last check, last material change and next run; filters; bulk pause/resume. */
export function TrackersList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState<TFilter>("");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const list = useQuery(trpc.tracker.list.queryOptions(filter ? { status: filter } : undefined));
  const bulk = useMutation(
    trpc.tracker.setStatusMany.mutationOptions({
      onSuccess: () => {
        setSelected(new Set());
        return queryClient.invalidateQueries(trpc.tracker.list.queryFilter());
      },
    }),
  );

  const toggle = (id: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  if (list.isPending) return <p role="status">Loading trackers…</p>;
  if (list.isError) {
    return (
      <p role="alert" className="text-red-700 dark:text-red-400">
        Could not load trackers: {list.error.message}
      </p>
    );
  }
  if (!filter && list.data.length === 0) {
    return (
      <EmptyState title="No trackers yet" action={{ href: "/trackers/new", label: "Create your first tracker" }}>
        <p>
          A tracker pairs a decision with a source — a web page or a Google Maps place. Bellwether drafts what to watch
          from one real sample, you confirm it, and from then on only changes that matter are recorded.
        </p>
      </EmptyState>
    );
  }

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <label className="text-sm">
          <span className="mr-2 font-medium">Show</span>
          <select
            value={filter}
            onChange={(e) => setFilter(e.target.value as TFilter)}
            className="rounded-md border border-stone-300 bg-white px-2 py-1 dark:border-stone-700 dark:bg-stone-900"
          >
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className={buttonSecondary}
          disabled={selected.size === 0 || bulk.isPending}
          onClick={() => bulk.mutate({ trackerIds: [...selected], status: "paused" })}
        >
          Pause selected
        </button>
        <button
          type="button"
          className={buttonSecondary}
          disabled={selected.size === 0 || bulk.isPending}
          onClick={() => bulk.mutate({ trackerIds: [...selected], status: "active" })}
        >
          Resume selected
        </button>
        <Link href="/trackers/new" className={`${buttonPrimary} ml-auto`}>
          New tracker
        </Link>
      </div>
      {bulk.data?.refused.length ? (
        <p role="alert" className="text-sm text-amber-800 dark:text-amber-300">
          {bulk.data.refused.length} tracker(s) not changed: {bulk.data.refused.map((r) => r.message).join(" ")}
        </p>
      ) : null}
      {bulk.isError ? (
        <p role="alert" className="text-sm text-red-700">
          {bulk.error.message}
        </p>
      ) : null}
      {list.data.length === 0 ? (
        <p className="text-sm text-stone-600">No trackers match this filter.</p>
      ) : (
        <ul className="divide-y divide-stone-200 rounded-xl border border-stone-200 bg-white dark:divide-stone-800 dark:border-stone-800 dark:bg-stone-900">
          {list.data.map((t) => (
            <li key={t.id} className="flex gap-3 p-4" data-testid="tracker-row">
              <input
                type="checkbox"
                aria-label={`Select “${t.decision}”`}
                checked={selected.has(t.id)}
                onChange={() => toggle(t.id)}
                className="mt-1"
              />
              <div className="min-w-0 flex-1">
                <div className="flex flex-wrap items-center gap-2">
                  <Link href={`/trackers/${t.id}`} className="font-medium underline-offset-2 hover:underline">
                    {t.decision}
                  </Link>
                  <StatusBadge status={t.status} failing={t.failing} />
                </div>
                <p className="truncate text-xs text-stone-500">
                  {t.capability} · {t.target}
                </p>
                {t.failing && t.lastError ? (
                  <p className="mt-1 text-xs text-red-700 dark:text-red-400">Last error: {t.lastError}</p>
                ) : null}
                <dl className="mt-2 grid grid-cols-2 gap-x-4 text-xs text-stone-600 sm:grid-cols-4 dark:text-stone-400">
                  <div>
                    <dt className="inline font-medium">Last checked: </dt>
                    <dd className="inline">
                      <LocalTime value={t.lastRunAt} />
                    </dd>
                  </div>
                  <div>
                    <dt className="inline font-medium">Last material: </dt>
                    <dd className="inline">
                      <LocalTime value={t.lastMaterialAt} />
                    </dd>
                  </div>
                  <div>
                    <dt className="inline font-medium">Next run: </dt>
                    <dd className="inline">
                      <LocalTime value={t.nextRunAt} />
                    </dd>
                  </div>
                  <div>
                    <dt className="inline font-medium">Schedule: </dt>
                    <dd className="inline">{formatSchedule(t.scheduleMinutes)}</dd>
                  </div>
                </dl>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

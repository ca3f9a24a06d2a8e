"use client";

import Link from "next/link";
import { LocalTime } from "@/components/format/local-time";
import type { TTrackerListItem } from "@/contracts/trackers";
import { formatSchedule } from "./format";
import { RelativeTime } from "./relative-time";
import { StatusBadge } from "./status-badge";

/**
 * One tracker in the list: its checkbox, question, status and source, what the source says now, its last material
 * change, and when it was checked and runs next.
 */
export function TrackerRow({
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

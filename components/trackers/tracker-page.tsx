"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { LocalTime } from "@/components/format/local-time";
import { AtomFeedUrl } from "@/components/notifications/notification-defaults";
import { TrackerRouting } from "@/components/notifications/tracker-routing";
import { useTRPC } from "@/components/providers/trpc";
import { FieldCharts } from "@/components/timeline/field-charts";
import { RejudgedHistory } from "@/components/timeline/rejudged-history";
import { TimelineList } from "@/components/timeline/timeline-list";
import { ContextFiles } from "./context-files";
import { CurrentState } from "./current-state";
import { describeStoredHistory, formatSchedule } from "./format";
import { LockedDefinition } from "./locked-definition";
import { NextRun, OverdueWarning } from "./next-run";
import { RefreshNow } from "./refresh-now";
import { RejudgeOffer } from "./rejudge-offer";
import { RunsLog } from "./runs-log";
import { StatusBadge } from "./status-badge";
import { TrackerControls } from "./tracker-controls";
import { useTrackerLive } from "./use-tracker-live";

function Card({
  title,
  children,
  testId,
  className = "",
}: {
  title: string;
  children: ReactNode;
  testId?: string;
  className?: string;
}) {
  const id = `tracker-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section
      aria-labelledby={id}
      data-testid={testId}
      className={`min-w-0 rounded-xl border border-stone-200 bg-white p-5 dark:border-stone-800 dark:bg-stone-900 ${className}`}
    >
      <h2 id={id} className="mb-3 text-base font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/**
 * The tracker page: decision, controls, then — in this order on a phone — current state, charts, timeline, runs
 * and the definition; on a wide screen state and definition sit in a side column. Live: it follows its tracker's
 * events (a run ended, a change landed, the status moved), reloads in place and says so politely.
 */
export function TrackerPage({ trackerId, justLocked = null }: { trackerId: string; justLocked?: number | null }) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.tracker.get.queryOptions({ trackerId }));
  const { live, announcement, lastChecked } = useTrackerLive(trackerId);
  if (overview.isPending) return <p role="status">Loading the tracker…</p>;
  if (overview.isError) {
    return (
      <p role="alert" className="text-red-700 dark:text-red-400">
        {overview.error.message}
      </p>
    );
  }
  const { tracker, definition, versions, state, storedHistory, keepingWatch } = overview.data;
  const canRefresh = tracker.status !== "archived" && tracker.lockedVersion !== null;
  const fields = definition?.fields ?? [];
  const formats = Object.fromEntries(fields.map((f) => [f.name, f.format]));

  return (
    <div className="space-y-6" data-testid="tracker-page" data-live={live}>
      <header className="space-y-3">
        <div className="flex flex-wrap items-start justify-between gap-4">
          <div className="min-w-0 flex-1 basis-72">
            <h1 className="text-2xl font-semibold tracking-tight break-words" data-testid="tracker-decision">
              {tracker.decision}
            </h1>
            <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-stone-600 dark:text-stone-400">
              <StatusBadge status={tracker.status} failing={tracker.failing} needsAttention={tracker.needsAttention} />
              {tracker.fields ? (
                <span data-testid="tracker-fields-read">
                  reads {tracker.fields.read} of {tracker.fields.total} field{tracker.fields.total === 1 ? "" : "s"}
                </span>
              ) : null}
              <span className="break-all">
                {tracker.capability} · {tracker.target}
              </span>
            </p>
            <p className="mt-1 text-xs text-stone-600 dark:text-stone-400" data-testid="tracker-schedule">
              {formatSchedule(tracker.scheduleMinutes)} · last checked{" "}
              <LocalTime value={tracker.lastRunAt} empty="never" /> · next run{" "}
              <NextRun tracker={tracker} keepingWatch={keepingWatch} />
            </p>
            <p
              role="status"
              data-testid="tracker-live-status"
              className="mt-1 min-h-4 text-xs text-sky-800 dark:text-sky-300"
            >
              {announcement.text}
              {/* The same words again are announced again. */}
              {announcement.text && announcement.n % 2 ? "\u00a0" : ""}
            </p>
          </div>
          {canRefresh ? <RefreshNow trackerId={tracker.id} lastChecked={lastChecked} /> : null}
        </div>
        <OverdueWarning tracker={tracker} keepingWatch={keepingWatch} />
        {tracker.failing ? (
          <p
            role="alert"
            data-testid="tracker-failing"
            className="rounded-md bg-red-50 p-3 text-sm text-red-900 dark:bg-red-950 dark:text-red-200"
          >
            Failing: the last {tracker.consecutiveFailures} refreshes failed. Last error: {tracker.lastError}
          </p>
        ) : null}
        {tracker.needsAttention && tracker.attentionReason ? (
          <div
            role="alert"
            data-testid="tracker-needs-attention"
            className="space-y-1 rounded-md bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-200"
          >
            <p>
              <span className="font-medium">Needs attention:</span> {tracker.attentionReason}.
            </p>
            <p>
              The page still loads, but this field no longer finds its value, so changes to it go unrecorded.{" "}
              <Link
                href={`/trackers/${tracker.id}/edit?fix=page`}
                className="font-medium underline underline-offset-2"
                data-testid="fix-on-page"
              >
                Fix it on the page
              </Link>
              : the page is read again and shown beside how it was, and you point at the value where it is now;
              recording then continues on the same timeline.
            </p>
          </div>
        ) : null}
        <TrackerControls trackerId={tracker.id} status={tracker.status} scheduleMinutes={tracker.scheduleMinutes} />
        {/* Just locked vN+1 from the edit page (?locked=N+1): the optional "lock with history". */}
        {justLocked !== null && justLocked > 1 && justLocked === tracker.lockedVersion ? (
          <RejudgeOffer trackerId={tracker.id} version={justLocked} />
        ) : null}
      </header>

      {/* Reading order = phone order: state, charts, timeline, runs, definition. Wide: a side column on the right. */}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3 lg:grid-rows-[auto_1fr] lg:items-start">
        <Card title="Current state" testId="tracker-state" className="lg:col-start-3 lg:row-start-1">
          <CurrentState state={state} rules={fields} />
        </Card>
        <div className="min-w-0 space-y-6 lg:col-span-2 lg:col-start-1 lg:row-span-2 lg:row-start-1">
          <Card title="Charts" testId="tracker-charts">
            <FieldCharts trackerId={tracker.id} />
          </Card>
          <Card title="Timeline" testId="tracker-timeline">
            <TimelineList trackerId={tracker.id} formats={formats} />
            <RejudgedHistory trackerId={tracker.id} formats={formats} />
          </Card>
          <Card title="Runs" testId="tracker-runs">
            <RunsLog trackerId={tracker.id} />
            {/* What replay can run a definition edit over (docs/replay.md); retention thins it (docs/operations.md, "Retention"). */}
            <p
              data-testid="stored-history"
              data-captures={storedHistory.captures}
              className="mt-3 text-xs break-words text-stone-600 dark:text-stone-400"
            >
              {describeStoredHistory(storedHistory)}
            </p>
          </Card>
        </div>
        <div className="min-w-0 space-y-6 lg:col-start-3 lg:row-start-2">
          <Card title="Definition" testId="tracker-definition">
            <LockedDefinition definition={definition} versions={versions} />
          </Card>
          <Card title="Context files" testId="tracker-context-files">
            <ContextFiles trackerId={tracker.id} />
          </Card>
          <Card title="Notifications" testId="tracker-notifications">
            <TrackerRouting trackerId={tracker.id} />
            <AtomFeedUrl trackerId={tracker.id} />
          </Card>
        </div>
      </div>
    </div>
  );
}

"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { FieldCharts } from "@/components/timeline/field-charts";
import { TimelineList } from "@/components/timeline/timeline-list";
import { CurrentState } from "./current-state";
import { formatSchedule } from "./format";
import { LockedDefinition } from "./locked-definition";
import { RefreshNow } from "./refresh-now";
import { RunsLog } from "./runs-log";
import { StatusBadge } from "./status-badge";
import { TrackerControls } from "./tracker-controls";

function Card({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  const id = `tracker-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section
      aria-labelledby={id}
      data-testid={testId}
      className="rounded-xl border border-stone-200 bg-white p-5 dark:border-stone-800 dark:bg-stone-900"
    >
      <h2 id={id} className="mb-3 text-base font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** The tracker page: decision, controls, state, charts, timeline, runs and the definition. */
export function TrackerPage({ trackerId }: { trackerId: string }) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.tracker.get.queryOptions({ trackerId }));
  if (overview.isPending) return <p role="status">Loading the tracker…</p>;
  if (overview.isError) {
    return (
      <p role="alert" className="text-red-700 dark:text-red-400">
        {overview.error.message}
      </p>
    );
  }
  const { tracker, definition, versions, state } = overview.data;
  const canRefresh = tracker.status !== "archived" && tracker.lockedVersion !== null;

  return (
    <div className="space-y-6">
      <header className="space-y-3">
        <div className="flex flex-wrap items-start justify-between gap-4">
          <div className="min-w-0">
            <h1 className="text-2xl font-semibold tracking-tight" data-testid="tracker-decision">
              {tracker.decision}
            </h1>
            <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-stone-600 dark:text-stone-400">
              <StatusBadge status={tracker.status} failing={tracker.failing} />
              <span className="break-all">
                {tracker.capability} · {tracker.target}
              </span>
            </p>
            <p className="mt-1 text-xs text-stone-500">
              {formatSchedule(tracker.scheduleMinutes)} · last checked <LocalTime value={tracker.lastRunAt} /> · next
              run <LocalTime value={tracker.nextRunAt} />
            </p>
          </div>
          {canRefresh ? <RefreshNow trackerId={tracker.id} /> : null}
        </div>
        {tracker.failing ? (
          <p
            role="alert"
            data-testid="tracker-failing"
            className="rounded-md bg-red-50 p-3 text-sm text-red-900 dark:bg-red-950 dark:text-red-200"
          >
            Failing: the last {tracker.consecutiveFailures} refreshes failed. Last error: {tracker.lastError}
          </p>
        ) : null}
        <TrackerControls trackerId={tracker.id} status={tracker.status} scheduleMinutes={tracker.scheduleMinutes} />
      </header>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
        <div className="space-y-6 lg:col-span-2">
          <Card title="Charts" testId="tracker-charts">
            <FieldCharts trackerId={tracker.id} />
          </Card>
          <Card title="Timeline">
            <TimelineList trackerId={tracker.id} />
          </Card>
          <Card title="Runs">
            <RunsLog trackerId={tracker.id} />
          </Card>
        </div>
        <div className="space-y-6">
          <Card title="Current state">
            <CurrentState state={state} rules={definition?.fields ?? []} />
          </Card>
          <Card title="Definition">
            <LockedDefinition definition={definition} versions={versions} />
          </Card>
        </div>
      </div>
    </div>
  );
}

"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { TimelineEntry } from "@/components/timeline/timeline-entry";
import { buttonPrimary, buttonSecondary, focusRing } from "@/components/ui/button-styles";
import { REPLAY_MAX_MODEL_BUDGET, type TReplayEntry, type TReplayResult } from "@/contracts/replay";
import {
  countsSentence,
  DIFF_LABEL,
  fieldFormats,
  planSentence,
  replayPeriod,
  replayRows,
  type TReplayDiff,
  toEntryView,
} from "./replay-view";
import { useReplayStream } from "./use-replay-stream";

const inputClass =
  "rounded-md border border-stone-300 bg-transparent px-2 py-1.5 text-sm dark:border-stone-700 dark:[color-scheme:dark]";

/** Row frames per kind; the kind is also written out in words (DIFF_LABEL), never shown by colour alone. */
const DIFF_STYLE: Record<TReplayDiff, string> = {
  added: "border-l-4 border-l-emerald-600 bg-emerald-50 dark:border-l-emerald-500 dark:bg-emerald-950/40",
  removed: "border-l-4 border-l-red-600 bg-red-50 dark:border-l-red-500 dark:bg-red-950/40",
  changed: "border-l-4 border-l-amber-500 bg-amber-50 dark:border-l-amber-400 dark:bg-amber-950/40",
  same: "border-l-4 border-l-stone-200 dark:border-l-stone-700",
};
const DIFF_BADGE: Record<TReplayDiff, string> = {
  added: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
  removed: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
  changed: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  same: "bg-stone-100 text-stone-700 dark:bg-stone-800 dark:text-stone-300",
};

type TProps = {
  trackerId: string;
  /** The version in force (what the timeline was recorded under) and the draft's. */
  lockedVersion: number;
  draftVersion: number;
  /** The saved draft definition: field formats, and a new plan whenever it changes. */
  definition: unknown;
  aiOn: boolean;
  /** While the chat is writing a new draft, the stored draft is about to change: no run. */
  disabled?: boolean;
};

/**
 * "Replay over history" (docs/replay.md), under the draft card of an already-locked tracker: pick a period, read the plan
 * (captures, model calls), run with progress and Cancel, then read what was recorded under vN beside what the
 * draft would have recorded, matched by run, with the summary sentence. Nothing is written to the timeline.
 */
export function ReplayPanel({ trackerId, lockedVersion, draftVersion, definition, aiOn, disabled = false }: TProps) {
  const trpc = useTRPC();
  const ids = useId();
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [budget, setBudget] = useState(0);
  const [showSame, setShowSame] = useState(false);
  const { run, start, cancel, reset } = useReplayStream(trackerId);
  const period = replayPeriod(from, to);
  const backwards = !!(period.from && period.to && period.from > period.to);
  const stamp = JSON.stringify(definition ?? null);

  const plan = useQuery({
    ...trpc.tracker.replayPlan.queryOptions({ trackerId, ...period }),
    enabled: !backwards,
    staleTime: 0,
  });
  const refetchPlan = plan.refetch;
  // A revised draft makes the shown comparison stale: plan again, clear the last run.
  const lastStamp = useRef(stamp);
  useEffect(() => {
    if (lastStamp.current === stamp) return;
    lastStamp.current = stamp;
    reset();
    void refetchPlan();
  }, [stamp, reset, refetchPlan]);

  const running = run.phase === "running";
  const modelAvailable = plan.data?.modelAvailable ?? aiOn;
  const onRun = () => {
    void start({
      ...(period.from ? { from: period.from.toISOString() } : {}),
      ...(period.to ? { to: period.to.toISOString() } : {}),
      modelBudget: modelAvailable ? budget : 0,
    });
  };

  return (
    <section
      aria-labelledby={`${ids}-title`}
      data-testid="replay-panel"
      className="rounded-xl border border-stone-200 bg-white p-4 dark:border-stone-800 dark:bg-stone-900"
    >
      <h2 id={`${ids}-title`} className="text-base font-semibold">
        Replay over history
      </h2>
      <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">
        See what the draft (v{draftVersion}) would have recorded over the pages already stored, beside what v
        {lockedVersion} recorded. Nothing is written to the timeline.
      </p>

      <fieldset className="mt-3 flex flex-wrap items-end gap-3" disabled={running}>
        <legend className="sr-only">Period</legend>
        <label className="flex flex-col gap-1 text-sm">
          <span>From</span>
          <input
            type="date"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            className={`${inputClass} ${focusRing}`}
            data-testid="replay-from"
            aria-describedby={`${ids}-period-hint`}
          />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span>To</span>
          <input
            type="date"
            value={to}
            onChange={(e) => setTo(e.target.value)}
            className={`${inputClass} ${focusRing}`}
            data-testid="replay-to"
            aria-describedby={`${ids}-period-hint`}
          />
        </label>
        {modelAvailable ? (
          <label className="flex flex-col gap-1 text-sm">
            <span>Model calls allowed</span>
            <input
              type="number"
              min={0}
              max={REPLAY_MAX_MODEL_BUDGET}
              step={1}
              value={budget}
              onChange={(e) =>
                setBudget(Math.max(0, Math.min(REPLAY_MAX_MODEL_BUDGET, Math.trunc(Number(e.target.value) || 0))))
              }
              className={`${inputClass} ${focusRing} w-28`}
              data-testid="replay-budget"
              aria-describedby={`${ids}-budget-hint`}
            />
          </label>
        ) : null}
      </fieldset>
      <p id={`${ids}-period-hint`} className="mt-1 text-xs text-stone-600 dark:text-stone-400">
        Both days included; leave them empty for all stored history.
        {modelAvailable ? null : " AI is off: fields only the agent can judge are marked “would ask the agent”."}
      </p>
      {modelAvailable ? (
        <p id={`${ids}-budget-hint`} className="text-xs text-stone-600 dark:text-stone-400">
          0 = no model call: fields no rule or stored verdict decides are marked “would ask the agent”.
        </p>
      ) : null}

      <div className="mt-3 text-sm" aria-live="polite" data-testid="replay-plan">
        {backwards ? (
          <p role="alert" className="text-red-700 dark:text-red-400">
            The start date must not be after the end date.
          </p>
        ) : plan.isPending ? (
          <p className="text-stone-600 dark:text-stone-400">Counting the stored history…</p>
        ) : plan.isError ? (
          <p role="alert" className="text-red-700 dark:text-red-400">
            {plan.error.message}
          </p>
        ) : plan.data.captures === 0 ? (
          <p data-testid="replay-empty" className="text-stone-600 dark:text-stone-400">
            No stored history yet — captures are stored from the first changed refresh on.
          </p>
        ) : (
          <p data-testid="replay-plan-sentence">{planSentence(plan.data)}</p>
        )}
      </div>

      <div className="mt-3 flex flex-wrap items-center gap-2">
        {/* One button that turns into Cancel while the replay runs, so keyboard focus stays where it was. */}
        <button
          type="button"
          onClick={running ? cancel : onRun}
          disabled={!running && (disabled || backwards || !plan.data || plan.data.captures === 0)}
          className={`${running ? buttonSecondary : buttonPrimary} ${focusRing}`}
          data-testid={running ? "replay-cancel" : "replay-run"}
        >
          {running ? "Cancel" : run.phase === "done" ? "Run again" : "Run replay"}
        </button>
        {running ? (
          <ReplayProgress
            label={
              run.plan?.modelAvailable && run.plan.modelCallsNeeded > 0 && budget > 0 ? "Asking the model" : "Replaying"
            }
            done={run.done}
            total={run.total || (plan.data?.captures ?? 0)}
          />
        ) : null}
      </div>

      {run.phase === "cancelled" ? (
        <p role="status" className="mt-3 text-sm text-stone-600 dark:text-stone-400" data-testid="replay-cancelled">
          Replay cancelled after {run.done} of {run.total} captures. Nothing was recorded.
        </p>
      ) : null}
      {run.phase === "error" ? (
        <p role="alert" className="mt-3 text-sm text-red-700 dark:text-red-400" data-testid="replay-error">
          {run.message}
        </p>
      ) : null}
      {run.phase === "done" ? (
        <ReplayComparison
          result={run.result}
          lockedVersion={lockedVersion}
          draftVersion={draftVersion}
          formats={fieldFormats(definition)}
          showSame={showSame}
          onShowSame={setShowSame}
        />
      ) : null}
    </section>
  );
}

function ReplayProgress({ label, done, total }: { label: string; done: number; total: number }) {
  return (
    <div className="flex min-w-40 flex-1 items-center gap-2 text-sm">
      <progress
        value={done}
        max={Math.max(1, total)}
        aria-label={`${label}: progress`}
        data-testid="replay-progress"
        className="h-2 flex-1 accent-stone-900 dark:accent-stone-100"
      />
      <span role="status" className="tabular-nums text-stone-600 dark:text-stone-400">
        {label}: {done} / {total}
      </span>
    </div>
  );
}

function ReplayComparison({
  result,
  lockedVersion,
  draftVersion,
  formats,
  showSame,
  onShowSame,
}: {
  result: TReplayResult;
  lockedVersion: number;
  draftVersion: number;
  formats: ReturnType<typeof fieldFormats>;
  showSame: boolean;
  onShowSame: (show: boolean) => void;
}) {
  const rows = useMemo(() => replayRows(result), [result]);
  const same = rows.filter((r) => r.diff === "same").length;
  const shown = showSame ? rows : rows.filter((r) => r.diff !== "same");
  const recordedTitle = `Recorded (v${lockedVersion})`;
  const replayedTitle = `Draft would record (v${draftVersion})`;
  return (
    <div className="mt-4 space-y-3" data-testid="replay-result">
      <p role="status" className="text-sm font-medium" data-testid="replay-summary">
        {sentenceCase(result.summary)}
      </p>
      <p className="text-xs text-stone-600 dark:text-stone-400" data-testid="replay-counts">
        {countsSentence(result)}
        {result.modelCalls > 0 ? ` · ${result.modelCalls} model calls made` : ""}
        {result.wouldAsk > 0 ? ` · ${result.wouldAsk} left to the agent` : ""}
      </p>
      {result.cancelled ? (
        <p className="text-xs text-amber-800 dark:text-amber-300">
          Cancelled part way: the comparison covers only the captures replayed before it stopped.
        </p>
      ) : null}
      {same > 0 ? (
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={showSame}
            onChange={(e) => onShowSame(e.target.checked)}
            className={focusRing}
            data-testid="replay-show-same"
          />
          Also show the {same} {same === 1 ? "entry" : "entries"} both record the same
        </label>
      ) : null}
      {shown.length === 0 ? (
        <p className="text-sm text-stone-600 dark:text-stone-400" data-testid="replay-no-difference">
          {rows.length === 0
            ? "Neither version records an entry over this period."
            : "The draft records exactly what was recorded over this period."}
        </p>
      ) : (
        <div className="text-sm">
          {/* Column names on a wide screen; each cell also names its column (visible on a phone, where they stack). */}
          <div
            aria-hidden="true"
            className="hidden grid-cols-2 gap-3 border-b border-stone-200 pb-1 font-medium sm:grid dark:border-stone-800"
          >
            <span>{recordedTitle}</span>
            <span>{replayedTitle}</span>
          </div>
          <ol
            aria-label="Recorded beside what the draft would record, by run"
            className="divide-y divide-stone-200 dark:divide-stone-800"
          >
            {shown.map((row) => (
              <li
                key={row.runId}
                data-testid="replay-row"
                data-diff={row.diff}
                className={`grid grid-cols-1 gap-x-3 px-2 py-1 sm:grid-cols-2 ${DIFF_STYLE[row.diff]}`}
              >
                <p className="pt-2 sm:col-span-2">
                  <span
                    className={`rounded px-1.5 py-0.5 text-xs font-semibold ${DIFF_BADGE[row.diff]}`}
                    data-testid="replay-diff-label"
                  >
                    {DIFF_LABEL[row.diff]}
                  </span>
                </p>
                <ReplayCell
                  title={recordedTitle}
                  entry={row.recorded}
                  column="recorded"
                  empty="Not recorded"
                  formats={formats}
                />
                <ReplayCell
                  title={replayedTitle}
                  entry={row.replayed}
                  column="replayed"
                  empty="Would not be recorded"
                  formats={formats}
                />
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  );
}

function ReplayCell({
  title,
  entry,
  column,
  empty,
  formats,
}: {
  title: string;
  entry: TReplayEntry | null;
  column: "recorded" | "replayed";
  empty: string;
  formats: ReturnType<typeof fieldFormats>;
}) {
  return (
    <div data-testid={`replay-${column}`} className="min-w-0">
      {/* The column's name on a phone, where the columns stack; the header row names them on a wide screen. */}
      <p className="pt-1 text-xs font-medium text-stone-600 sm:sr-only dark:text-stone-400">{title}</p>
      {entry ? (
        <>
          <ul>
            <TimelineEntry entry={toEntryView(entry, column)} formats={formats} />
          </ul>
          {entry.wouldAsk.length > 0 ? (
            <p className="pb-2 text-xs text-amber-800 dark:text-amber-300" data-testid="replay-would-ask">
              Would ask the agent: {entry.wouldAsk.join(", ")}
            </p>
          ) : null}
        </>
      ) : (
        <p className="py-3 text-stone-500 italic dark:text-stone-400">{empty}</p>
      )}
    </div>
  );
}

/** "would have recorded…" → "Would have recorded…" (the engine's sentence reads inside others too). */
function sentenceCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

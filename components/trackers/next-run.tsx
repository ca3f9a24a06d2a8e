import Link from "next/link";
import { LocalTime } from "@/components/format/local-time";
import type { TTrackerSummary } from "@/contracts/trackers";

type TProps = { tracker: Pick<TTrackerSummary, "status" | "nextRunAt" | "due" | "overdue">; keepingWatch: boolean };

/**
 * When the tracker really runs next (docs/scheduling.md): its time, with "due now" once that has come (as the server
 * read it, so the page renders the same before and after hydration), or "not scheduled" when no scheduler keeps watch.
 */
export function NextRun({ tracker, keepingWatch }: TProps) {
  if (tracker.status !== "active" || !tracker.nextRunAt) return <>none</>;
  const note = !keepingWatch ? "not scheduled: nothing is refreshing trackers" : tracker.due ? "due now" : null;
  return (
    <>
      <LocalTime value={tracker.nextRunAt} />
      {note ? <span data-testid="tracker-next-run-note"> ({note})</span> : null}
    </>
  );
}

/** An active tracker more than two intervals late: says so, and why as far as the server can tell. */
export function OverdueWarning({ tracker, keepingWatch }: TProps) {
  if (!tracker.overdue) return null;
  return (
    <p
      role="alert"
      data-testid="tracker-overdue"
      className="rounded-md bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-100"
    >
      Overdue: this tracker was due at <LocalTime value={tracker.nextRunAt} /> and has not run since.{" "}
      {keepingWatch
        ? "A scheduler is running but has not reached it: it may be stuck or far behind."
        : "Nothing is refreshing trackers: this server's scheduler is off and no worker or cron call has been seen."}{" "}
      <Link href="/system" className="underline underline-offset-2">
        See System
      </Link>{" "}
      — or use Refresh now.
    </p>
  );
}

import { LocalTime } from "@/components/format/local-time";
import type { TSchedulerDetails } from "@/components/providers/router-outputs";
import { DetailRow, DetailSection } from "@/components/ui/detail-list";

const KIND_NAMES = {
  app: "app server",
  worker: "worker (npm run worker)",
  cron: "cron route (/api/cron/refresh)",
} as const;

/** A duration for people: "850 ms", "4.2 s", "12 min", "2 h 57 min". */
function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.round(ms / 60_000);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

// break-normal: the detail rows break anywhere (for long paths and URLs); sentences break between words.
const alertClass = "mt-1 block break-normal rounded-md bg-red-50 p-2 text-red-900 dark:bg-red-950 dark:text-red-200";

/**
 * The System page's scheduler (docs/scheduling.md): whether this server keeps watch and why, its last and next pass,
 * every scheduler seen (app servers, workers, the cron route), how far behind the trackers are and what the
 * notification sender has waiting. Says plainly when nothing keeps watch.
 */
export function SchedulerSection({ scheduler }: { scheduler: TSchedulerDetails }) {
  const { thisServer, trackers, deliveries } = scheduler;
  const alive = scheduler.schedulers.filter((s) => s.alive);
  return (
    <DetailSection title="Scheduler">
      <DetailRow label="This server" testId="system-scheduler-mode">
        {thisServer.enabled ? (thisServer.running ? "On" : "On, not started") : "Off"} — {thisServer.reason}
        {thisServer.running && thisServer.pollMs !== null ? (
          <span className="block text-xs text-stone-600 dark:text-stone-400">
            looks for due trackers every {duration(thisServer.pollMs)} when idle, at once after finding work
          </span>
        ) : null}
        {thisServer.stalled ? (
          <span role="alert" className={alertClass} data-testid="system-scheduler-stalled">
            Stuck: its loop has not come round for longer than a pass can take. /api/health reports it; restart the
            server.
          </span>
        ) : null}
      </DetailRow>
      {thisServer.running ? (
        <>
          <DetailRow label="Last pass" testId="system-scheduler-last-pass">
            {thisServer.lastPass ? (
              <>
                <LocalTime value={thisServer.lastPass.startedAt} /> · {plural(thisServer.lastPass.claimed, "tracker")}{" "}
                refreshed · took {duration(thisServer.lastPass.durationMs)}
              </>
            ) : (
              "none yet"
            )}
          </DetailRow>
          <DetailRow label="Next pass" testId="system-scheduler-next-pass">
            <LocalTime value={thisServer.nextPassAt} empty="—" />
          </DetailRow>
        </>
      ) : null}
      <DetailRow label="Keeping watch" testId="system-scheduler-watchers">
        {alive.length > 0 ? (
          <ul className="space-y-1">
            {alive.map((s) => (
              <li key={s.id}>
                {s.id === thisServer.id ? "this server" : KIND_NAMES[s.kind]}
                {s.host ? ` on ${s.host}${s.pid ? ` (pid ${s.pid})` : ""}` : ""} · last seen{" "}
                <LocalTime value={s.seenAt} />
                {s.lastPass
                  ? ` · last pass ${plural(s.lastPass.claimed, "tracker")} in ${duration(s.lastPass.durationMs)}`
                  : ""}
              </li>
            ))}
          </ul>
        ) : (
          <span role="alert" className={alertClass} data-testid="system-scheduler-nobody">
            Nothing is refreshing trackers: no scheduler has been seen lately. Turn this server's on (SCHEDULER=on or
            unset), run <code>npm run worker</code> with PostgreSQL, or call <code>/api/cron/refresh</code> on a
            schedule (docs/scheduling.md).
          </span>
        )}
      </DetailRow>
      {trackers && deliveries ? (
        <>
          <DetailRow label="Trackers" testId="system-scheduler-trackers">
            {plural(trackers.active, "active tracker")} · {trackers.due} due now · {trackers.overdue} overdue
            {trackers.nextDueAt && trackers.due === 0 ? (
              <>
                {" "}
                · next due <LocalTime value={trackers.nextDueAt} />
              </>
            ) : null}
            {trackers.overdue > 0 ? (
              <span role="alert" className={alertClass}>
                {plural(trackers.overdue, "tracker is", "trackers are")} more than two intervals late (the most by{" "}
                {duration(trackers.lagMs)}).
              </span>
            ) : null}
          </DetailRow>
          <DetailRow label="Notifications waiting" testId="system-scheduler-deliveries">
            {deliveries.dueNow} due now · {deliveries.waiting - deliveries.dueNow} held for later (digests, quiet hours,
            retries) · {plural(deliveries.unsentChanges, "change")} not yet routed
            {deliveries.nextDueAt && deliveries.waiting > deliveries.dueNow ? (
              <>
                {" "}
                · next at <LocalTime value={deliveries.nextDueAt} />
              </>
            ) : null}
          </DetailRow>
        </>
      ) : (
        <DetailRow label="Trackers and notifications">
          <span data-testid="system-scheduler-counts-hidden">
            Only the owner of this Bellwether sees the counts over everyone's trackers.
          </span>
        </DetailRow>
      )}
    </DetailSection>
  );
}

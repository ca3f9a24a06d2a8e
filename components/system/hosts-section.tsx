import { LocalTime } from "@/components/format/local-time";
import type { TSchedulerDetails } from "@/components/providers/router-outputs";
import { DetailRow, DetailSection } from "@/components/ui/detail-list";

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const hint = "block text-xs text-stone-600 dark:text-stone-400";

/**
 * The System page's politeness per host (docs/scheduling.md): the limits every host gets, the hosts this server asks
 * most, and those that asked it to wait (429/503 + Retry-After) with when they may be asked again.
 */
export function HostsSection({ hosts }: { hosts: TSchedulerDetails["hosts"] }) {
  const { settings, busiest, held } = hosts;
  return (
    <DetailSection title="Politeness per host">
      <DetailRow label="Limits" testId="system-hosts-limits">
        {plural(settings.maxInFlight, "request")} in flight per host at most, starting at least{" "}
        {seconds(settings.minGapMs)} apart
        <span className={hint}>
          a call waiting for its turn gives up after {seconds(settings.maxWaitMs)} with the host not moving; its tracker
          retries later (HOST_MAX_IN_FLIGHT, HOST_MIN_GAP_MS, HOST_MAX_WAIT_MS)
        </span>
      </DetailRow>
      {busiest && held ? (
        <>
          <DetailRow label="Busiest hosts (this server)" testId="system-hosts-busiest">
            {busiest.length > 0 ? (
              <ul className="space-y-1">
                {busiest.map((h) => (
                  <li key={h.host}>
                    <code>{h.host}</code> · {h.inFlight} in flight
                    {h.waiting > 0 ? ` · ${h.waiting} waiting` : ""} · {plural(h.lastMinute, "request")} in the last
                    minute
                  </li>
                ))}
              </ul>
            ) : (
              "No requests in the last minute."
            )}
          </DetailRow>
          <DetailRow label="Backed off" testId="system-hosts-held">
            {held.length > 0 ? (
              <ul className="space-y-1">
                {held.map((h) => (
                  <li key={h.host}>
                    <code>{h.host}</code> asked us to wait: not asked again until <LocalTime value={h.until} /> (
                    {seconds(h.remainingMs)} from now)
                  </li>
                ))}
              </ul>
            ) : (
              "No host has asked us to wait."
            )}
          </DetailRow>
        </>
      ) : (
        <DetailRow label="Hosts">
          <span data-testid="system-hosts-hidden">
            Only the owner of this Bellwether sees which sites are being read.
          </span>
        </DetailRow>
      )}
    </DetailSection>
  );
}

import { createHostGate } from "@/server/lib/host-gate";
import { setHostGate } from "@/server/lib/host-gate-instance";

/**
 * Every fixture page of a benchmark is on one local host, which stands for the many hosts real trackers watch: the
 * per-host politeness (docs/scheduling.md "Politeness per host": two in flight, 250 ms apart) would otherwise be all a
 * benchmark measures. Opened wide here — in this process for the benchmarks that refresh in-process, and through the
 * environment for the app a benchmark starts. The gate itself is measured by its own tests.
 */
export const FIXTURE_HOST_ENV = { HOST_MAX_IN_FLIGHT: "64", HOST_MIN_GAP_MS: "0" } as const;

export const FIXTURE_HOST_NOTE =
  "per-host politeness opened wide (every fixture page is on one local host that stands for many)";

export function openFixtureHostGate(): void {
  setHostGate(createHostGate({ maxInFlight: 1000, minGapMs: 0, maxWaitMs: 60_000 }));
}

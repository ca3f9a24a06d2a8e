import { getEnv } from "../env";
import { createHostGate, type THostGate } from "./host-gate";

/** This process's gate (docs/scheduling.md "Politeness per host"): every capability call to a host passes it. */
let gate: THostGate | undefined;

export function getHostGate(): THostGate {
  if (!gate) {
    const env = getEnv();
    gate = createHostGate({
      maxInFlight: env.HOST_MAX_IN_FLIGHT,
      minGapMs: env.HOST_MIN_GAP_MS,
      maxWaitMs: env.HOST_MAX_WAIT_MS,
    });
  }
  return gate;
}

/** Tests and benchmarks: use this gate instead (undefined: a fresh one from the environment on next use). */
export function setHostGate(next: THostGate | undefined): void {
  gate = next;
}

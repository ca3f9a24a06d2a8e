import { getEnv } from "../env";
import { createHostGate, type THostGate } from "./host-gate";

/**
 * This process's gate (docs/scheduling.md "Politeness per host"): every capability call to a host passes it. It lives
 * on globalThis: Next bundles server code more than once (the scheduler started by instrumentation.ts, the API routes,
 * the pages), and each copy of this module must see the same gate — else /system would show another copy's hosts and
 * the limits would count per bundle.
 */
const KEY = Symbol.for("bellwether.hostGate");
const shared = globalThis as typeof globalThis & { [KEY]?: THostGate };

export function getHostGate(): THostGate {
  let gate = shared[KEY];
  if (!gate) {
    const env = getEnv();
    gate = createHostGate({
      maxInFlight: env.HOST_MAX_IN_FLIGHT,
      minGapMs: env.HOST_MIN_GAP_MS,
      maxWaitMs: env.HOST_MAX_WAIT_MS,
    });
    shared[KEY] = gate;
  }
  return gate;
}

/** Tests and benchmarks: use this gate instead (undefined: a fresh one from the environment on next use). */
export function setHostGate(next: THostGate | undefined): void {
  if (next) shared[KEY] = next;
  else delete shared[KEY];
}

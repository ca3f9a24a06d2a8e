import { getHostGate } from "../lib/host-gate-instance";

/**
 * The System page's "Politeness per host" (docs/scheduling.md): this process's host gate — the hosts it asks most
 * (calls in flight, calls started in the last minute) and those that asked it to wait (429/503 + Retry-After).
 * Host names say which sites everyone tracks, so like the scheduler's counts they are the owner's only.
 */
export type THostActivity = {
  settings: { maxInFlight: number; minGapMs: number; maxWaitMs: number };
  /** Null for members. */
  busiest: { host: string; inFlight: number; waiting: number; lastMinute: number }[] | null;
  /** Null for members. */
  held: { host: string; until: Date; remainingMs: number }[] | null;
};

const SHOWN = 5;

export function getHostActivity(input: { viewer: { role: "owner" | "member" }; now?: Date }): THostActivity {
  const report = getHostGate().report(SHOWN);
  if (input.viewer.role !== "owner") return { settings: report.settings, busiest: null, held: null };
  const now = (input.now ?? new Date()).getTime();
  return {
    settings: report.settings,
    busiest: report.busiest,
    held: report.held.map((h) => ({ host: h.host, until: new Date(h.until), remainingMs: Math.max(0, h.until - now) })),
  };
}

import type { TDb } from "../../db";
import type { TLogger } from "../../logger";
import { renewLease } from "../tracker-store";

/**
 * Renews the lease every third of its length while the run is alive (a timer that does not keep the process up), so
 * a run that died frees its tracker within one lease (docs/design.md §7).
 */
export function startHeartbeat(
  db: TDb,
  input: { trackerId: string; leaseToken: string; leasedAt: Date; leaseMs: number; now: () => Date; log: TLogger },
): { stop: () => void } {
  const timer = setInterval(
    () => {
      renewLease(db, {
        trackerId: input.trackerId,
        leaseToken: input.leaseToken,
        now: input.now(),
        leaseMs: input.leaseMs,
      })
        .then((held) => {
          if (!held) input.log.warn("refresh lost its lease; its final write will be fenced off");
        })
        .catch((error: unknown) => input.log.warn("lease renewal failed", { error }));
    },
    Math.max(1, Math.floor(input.leaseMs / 3)),
  );
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

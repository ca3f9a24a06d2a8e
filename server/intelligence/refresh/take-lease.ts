import { randomUUID } from "node:crypto";
import type { TDb } from "../../db";
import { leaseAndLoad, renewLease, type TLeaseAndLoadResult, type TLoadedTracker } from "../tracker-store";
import type { TRefreshOptions } from "./refresh-options";
import { runIdFor } from "./run-record";

export type TTakenLease =
  | { kind: "leased"; tracker: TLoadedTracker }
  | Extract<TLeaseAndLoadResult, { kind: "replay" }>
  | { kind: "busy"; holder: string | null };

/**
 * The lease and everything the run needs, in one statement (docs/design.md §3 "Runs, locks, idempotency"), or the
 * tracker the claim already leased and loaded (the cron / worker path, docs/design.md §7): no read of its own. A
 * person's own refresh (`options.caller`) has its owner check and rate-limit count in that same statement.
 */
export async function takeLease(
  db: TDb,
  input: { trackerId: string; options: TRefreshOptions; key: string | null; startedAt: Date; leaseMs: number },
): Promise<TTakenLease> {
  const { trackerId, options, key, startedAt, leaseMs } = input;
  return options.claimed
    ? await resumeClaim(db, options.claimed, { now: startedAt, leaseMs })
    : await leaseAndLoad(db, {
        trackerId,
        // The lease token is "runId:random" per attempt, so a slow attempt that lost its lease to a
        // takeover of the same run cannot pass the final fencing check.
        leaseToken: `${runIdFor(trackerId, key)}:${randomUUID()}`,
        now: startedAt,
        leaseMs,
        idempotencyKey: key,
        caller: options.caller ?? null,
      });
}

/**
 * A claimed tracker waits in its claimer's queue until a lane is free: if that took a good part of the
 * lease, renew it first — lost (expired and taken over meanwhile) → this claim is answered "in flight".
 */
async function resumeClaim(
  db: TDb,
  claimed: TLoadedTracker,
  input: { now: Date; leaseMs: number },
): Promise<{ kind: "leased"; tracker: TLoadedTracker } | { kind: "busy"; holder: string | null }> {
  if (input.now.getTime() - claimed.leasedAt.getTime() < input.leaseMs / 3) return { kind: "leased", tracker: claimed };
  const held = await renewLease(db, { trackerId: claimed.id, leaseToken: claimed.leaseToken, ...input });
  return held ? { kind: "leased", tracker: { ...claimed, leasedAt: input.now } } : { kind: "busy", holder: null };
}

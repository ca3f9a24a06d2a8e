import type { TDb } from "../../db";
import { prepareEvent, type TCheckOutcome } from "../../events";
import type { TLogger } from "../../logger";
import type { TModelUsage } from "../fill";
import type { TLoadedTracker } from "../tracker-store";
import type { TRefreshOptions } from "./refresh-options";
import type { createBufferedLedger, TRunRecord } from "./run-record";
import type { createStepRecorder } from "./run-steps";

/** What every step of one leased run shares, typed once and passed to each step explicitly. */
export type TRunContext = {
  db: TDb;
  options: TRefreshOptions;
  /** The leased tracker and its bundle (locked definition, entities with hashes and records). */
  tracker: TLoadedTracker;
  /** The run's id: the lease token's first part. */
  runId: string;
  trackerId: string;
  key: string | null;
  startedAt: Date;
  now: () => Date;
  log: TLogger;
  /** What the final write is fenced on: another holder's lease → nothing written (docs/design.md §3). */
  fence: { trackerId: string; leaseToken: string };
  steps: ReturnType<typeof createStepRecorder>;
  /** The run's capability calls, written with its final statement. */
  ledger: ReturnType<typeof createBufferedLedger>;
  /** What the model steps cost, including the calls of a step that then failed (meter-model-calls.ts). */
  cost: { modelCalls: number; usage: TModelUsage };
  /** Runs in a row a field may read nothing before the tracker needs attention (docs/field-health.md). */
  missingAfter: number;
  /** Set once the locked definition parsed: a run that failed before that records no version. */
  definitionVersion: number | null;
};

/** The run record as the run ends, with what it spent and the steps it took so far. */
export function runRecordOf(
  ctx: TRunContext,
  ending: { status: TRunRecord["status"]; outcome: string | null; summary: string },
): TRunRecord {
  return {
    id: ctx.runId,
    trackerId: ctx.trackerId,
    trigger: ctx.options.trigger,
    idempotencyKey: ctx.key,
    ...ending,
    definitionVersion: ctx.definitionVersion,
    steps: ctx.steps.steps,
    modelCalls: ctx.cost.modelCalls,
    usage: ctx.cost.usage,
    error: null,
    startedAt: ctx.startedAt,
    finishedAt: ctx.now(),
  };
}

/**
 * Whoever shows this tracker (its open page) hears that the run ended, whatever it found — and which run, so a
 * page's Refresh now can tell its own run's end from a later one's.
 */
export function checkedEvent(ctx: TRunContext, outcome: TCheckOutcome) {
  return prepareEvent("tracker.checked", {
    userId: ctx.tracker.userId,
    trackerId: ctx.tracker.id,
    runId: ctx.runId,
    outcome,
  });
}

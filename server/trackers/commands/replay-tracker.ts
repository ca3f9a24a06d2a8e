import type { z } from "zod";
import type { TReplayPlan, TReplayResult, ZReplayRequestSchema } from "@/contracts/replay";
import type { TDb } from "../../db";
import { AppError } from "../../errors";

export type TReplayTrackerInput = z.output<typeof ZReplayRequestSchema> & { userId: string };

export type TReplayObserver = {
  /** Heard once, before any capture is judged: how many captures and model calls the replay needs. */
  onPlan?: (plan: TReplayPlan) => void;
  /** Heard after each capture. */
  onProgress?: (done: number, total: number) => void;
  /** Aborted → the replay stops after the capture in hand and answers with `cancelled: true`. */
  signal?: AbortSignal;
};

/**
 * Replays a tracker's draft (or locked) definition over its stored captures (issue 18): fill → diff → judge in
 * memory, nothing written to the timeline. Owner-checked. planOnly → counts only.
 */
export async function replayTracker(
  _db: TDb,
  _input: TReplayTrackerInput,
  _observer: TReplayObserver = {},
): Promise<TReplayResult> {
  // Being built (issue 18); the engine lands in server/intelligence/replay.
  throw new AppError("PRECONDITION_FAILED", "Replay is not available yet.");
}

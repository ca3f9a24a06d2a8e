import type { TDb } from "../../db";
import { AppError } from "../../errors";

export type TRejudgeHistoryInput = { userId: string; trackerId: string; from?: Date; to?: Date };
export type TRejudgeHistoryResult = {
  /** The version the history was re-judged under (the one in force). */
  version: number;
  /** Captures judged again. */
  captures: number;
  /** Entries recorded as re-judged (material or notable under the version in force). */
  recorded: number;
  summary: string;
};

/**
 * "Lock with history" (issue 18, optional and explicit): after vN+1 is locked, re-judges the stored captures under it
 * and records the entries it would have recorded as re-judged (`EntityChange.rejudgedFrom`), beside the originals,
 * which stay as the history of vN (the timeline is append-only). Code rules and stored verdicts only: no model call.
 * Owner-checked. Idempotent: re-judging the same version twice records nothing new.
 */
export async function rejudgeHistory(_db: TDb, _input: TRejudgeHistoryInput): Promise<TRejudgeHistoryResult> {
  // Being built (issue 18) beside the replay engine.
  throw new AppError("PRECONDITION_FAILED", "Re-judging history is not available yet.");
}

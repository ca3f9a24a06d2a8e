import type { TDb } from "../../db";
import { AppError } from "../../errors";
import { replayDefinition } from "../../intelligence/replay";
import { getLockedDefinition, getTracker } from "../../intelligence/tracker-store";
import { appendRejudgedChanges } from "../../timeline";

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
 * "Lock with history" (docs/replay.md; optional and explicit): after vN+1 is locked, re-judges the stored captures under it
 * and records the entries it would have recorded as re-judged (RejudgedChange), beside the originals, which stay as
 * the history of vN (the timeline is append-only). Code rules and stored verdicts only: no model call — a field only
 * the agent could judge anew is flagged notable for the person, as in rules mode. Owner-checked. Idempotent:
 * re-judging under the same version again records nothing new.
 */
export async function rejudgeHistory(db: TDb, input: TRejudgeHistoryInput): Promise<TRejudgeHistoryResult> {
  const tracker = await getTracker(db, { userId: input.userId, trackerId: input.trackerId });
  if (input.from && input.to && input.from > input.to)
    throw new AppError("BAD_REQUEST", '"from" must not be after "to".');
  const locked = await getLockedDefinition(db, tracker.id);
  if (!locked || locked.version < 2) {
    throw new AppError(
      "PRECONDITION_FAILED",
      "Re-judging history needs a newer locked version: edit the definition and lock it first.",
    );
  }
  const replayed = await replayDefinition(db, tracker.id, {
    userId: input.userId,
    decision: tracker.decision,
    definition: locked.definition,
    version: locked.version,
    models: { filler: null, judge: null },
    modelBudget: 0,
    ...(input.from ? { from: input.from } : {}),
    ...(input.to ? { to: input.to } : {}),
  });
  // Only runs judged under an older version: a run already judged under this one is its own record.
  const older = await db.refreshRun.findMany({
    where: { trackerId: tracker.id, id: { in: replayed.runIds }, definitionVersion: { lt: locked.version } },
    select: { id: true },
  });
  const rejudge = new Set(older.map((r) => r.id));
  const entries = replayed.entries
    .filter((e) => rejudge.has(e.runId) && e.materiality !== "baseline")
    .map((e) => ({
      runId: e.runId,
      entityId: e.entityId,
      capturedAt: e.at,
      materiality: e.materiality,
      delta: e.delta,
      decisions: e.decisions,
    }));
  const recorded = await appendRejudgedChanges(db, { trackerId: tracker.id, version: locked.version, entries });
  const material = entries.filter((e) => e.materiality === "material").length;
  const summary =
    rejudge.size === 0
      ? `No stored history from before v${locked.version} to re-judge.`
      : recorded === 0 && entries.length > 0
        ? `History was already re-judged under v${locked.version}; nothing new.`
        : `Re-judged ${rejudge.size} stored page${rejudge.size === 1 ? "" : "s"} under v${locked.version}: ` +
          `${material} material and ${entries.length - material} notable change${entries.length - material === 1 ? "" : "s"}. ` +
          `The entries recorded under earlier versions stay as they were.`;
  return { version: locked.version, captures: rejudge.size, recorded, summary };
}

import type { z } from "zod";
import type { TReplayEntry, TReplayPlan, TReplayResult, ZReplayRequestSchema } from "@/contracts/replay";
import { getModel } from "../../ai";
import type { TDb } from "../../db";
import { AppError } from "../../errors";
import { parseDefinition, type TTrackerDefinition } from "../../intelligence/definition";
import type { TContextRetriever } from "../../intelligence/judge";
import { replayDefinition, type TReplayDefinitionResult, type TReplayedEntry } from "../../intelligence/replay";
import { getTracker } from "../../intelligence/tracker-store";
import { toTimelineEntry } from "../../timeline";
import { assertModelBudget, recordModelUsage } from "../../usage";
import { compareTimelines } from "./compare-timelines";

export type TReplayTrackerInput = z.output<typeof ZReplayRequestSchema> & { userId: string };

export type TReplayObserver = {
  /** Heard once, before any model call: how many captures and model calls the replay needs. */
  onPlan?: (plan: TReplayPlan) => void;
  /** Heard after each capture (the counting pass first, then the model pass when there is one). */
  onProgress?: (done: number, total: number) => void;
  /** Aborted → the replay stops after the capture in hand and answers with `cancelled: true`. */
  signal?: AbortSignal;
};

export type TReplaySeams = {
  models?: { filler: import("ai").LanguageModel | null; judge: import("ai").LanguageModel | null };
  retrieveContext?: TContextRetriever;
  now?: () => Date;
};

/**
 * Replays a tracker's draft (or locked) definition over its stored captures (docs/replay.md): fill → diff → judge in
 * memory, nothing written to the timeline. Owner-checked (another person's tracker is NOT_FOUND). A first pass
 * makes no model call and counts what a full replay would need — the plan, stated before any call; a second pass
 * asks the model only when a budget was given and there is something to ask. planOnly → the first pass only.
 */
export async function replayTracker(
  db: TDb,
  input: TReplayTrackerInput,
  observer: TReplayObserver = {},
  seams: TReplaySeams = {},
): Promise<TReplayResult> {
  const tracker = await getTracker(db, { userId: input.userId, trackerId: input.trackerId });
  if (input.from && input.to && input.from > input.to)
    throw new AppError("BAD_REQUEST", '"from" must not be after "to".');
  const target = await definitionToReplay(db, tracker.id, tracker.lockedVersion, input.definition);
  const models = seams.models ?? { filler: getModel("filler"), judge: getModel("judge") };
  const modelAvailable = models.judge !== null || models.filler !== null;
  const now = seams.now ?? (() => new Date());
  const base = {
    userId: input.userId,
    decision: tracker.decision,
    definition: target.definition,
    version: target.version,
    ...(input.from ? { from: input.from } : {}),
    ...(input.to ? { to: input.to } : {}),
    ...(seams.retrieveContext ? { retrieveContext: seams.retrieveContext } : {}),
    ...(observer.signal ? { signal: observer.signal } : {}),
  };

  const counted = await replayDefinition(db, tracker.id, {
    ...base,
    models,
    modelBudget: 0,
    ...(observer.onProgress ? { onProgress: observer.onProgress } : {}),
  });
  const plan: TReplayPlan = {
    captures: counted.captures,
    modelCallsNeeded: counted.modelCallsNeeded,
    reusable: counted.reused,
    from: counted.from?.toISOString() ?? null,
    to: counted.to?.toISOString() ?? null,
    version: target.version,
    lockedVersion: tracker.lockedVersion,
    modelAvailable,
  };
  observer.onPlan?.(plan);

  let replayed: TReplayDefinitionResult = counted;
  const ask = !input.planOnly && !counted.cancelled && modelAvailable && input.modelBudget > 0;
  if (ask && counted.modelCallsNeeded > 0) {
    replayed = await replayDefinition(db, tracker.id, {
      ...base,
      models,
      modelBudget: input.modelBudget,
      beforeModelCall: () => assertModelBudget(db, { userId: input.userId, now: now() }),
      ...(observer.onProgress ? { onProgress: observer.onProgress } : {}),
    });
    await recordModelUsage(db, {
      userId: input.userId,
      trackerId: tracker.id,
      kind: "replay",
      spend: {
        modelCalls: replayed.modelCalls,
        inputTokens: replayed.usage.inputTokens,
        outputTokens: replayed.usage.outputTokens,
      },
    });
  }

  const recorded = await recordedEntries(db, tracker.id, replayed.runIds);
  const replayedEntries = replayed.entries.map(toReplayEntry);
  return {
    plan,
    recorded,
    replayed: replayedEntries,
    ...compareTimelines(recorded, replayedEntries),
    modelCalls: replayed.modelCalls,
    wouldAsk: replayed.wouldAskCaptures,
    cancelled: replayed.cancelled,
  };
}

/** The open draft of the next version (default when there is one), or the version in force. */
async function definitionToReplay(
  db: TDb,
  trackerId: string,
  lockedVersion: number | null,
  which: "draft" | "locked" | undefined,
): Promise<{ version: number; definition: TTrackerDefinition }> {
  const rows = await db.trackerDefinition.findMany({
    where: { trackerId },
    orderBy: { version: "desc" },
    select: { version: true, definition: true, lockedAt: true },
    take: 2,
  });
  const draft = rows.find((r) => r.lockedAt === null && (lockedVersion === null || r.version > lockedVersion));
  const locked = rows.find((r) => r.lockedAt !== null && r.version === lockedVersion);
  const pick = which === "locked" ? locked : which === "draft" ? draft : (draft ?? locked);
  if (!pick) {
    throw new AppError(
      "PRECONDITION_FAILED",
      which === "draft" || (which === undefined && !locked)
        ? "There is no draft to replay: edit the definition first."
        : "This tracker has no locked definition yet, so there is no history to replay.",
    );
  }
  const parsed = parseDefinition(pick.definition);
  if (!parsed.ok) {
    throw new AppError("BAD_REQUEST", `The draft is not a valid definition yet: ${parsed.errors.join("; ")}`, {
      details: { errors: parsed.errors },
    });
  }
  return { version: pick.version, definition: parsed.definition };
}

/** The timeline as recorded for exactly the runs replayed (each run records at most one entry per entity). */
async function recordedEntries(db: TDb, trackerId: string, runIds: string[]): Promise<TReplayEntry[]> {
  if (runIds.length === 0) return [];
  const rows = await db.entityChange.findMany({
    where: { trackerId, runId: { in: runIds } },
    orderBy: [{ capturedAt: "asc" }, { id: "asc" }],
  });
  return rows.map((row) => {
    const e = toTimelineEntry(row);
    return {
      runId: e.runId,
      capturedAt: e.capturedAt.toISOString(),
      materiality: e.materiality,
      delta: e.delta,
      decisions: e.decisions,
      definitionVersion: e.definitionVersion,
      wouldAsk: [],
    };
  });
}

function toReplayEntry(e: TReplayedEntry): TReplayEntry {
  return {
    runId: e.runId,
    capturedAt: e.at.toISOString(),
    materiality: e.materiality,
    delta: e.delta,
    decisions: e.decisions,
    definitionVersion: e.definitionVersion,
    wouldAsk: e.wouldAsk,
  };
}

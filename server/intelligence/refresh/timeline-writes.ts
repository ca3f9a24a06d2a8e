import { keepBoundValuesSql, type TResolvedContextValue } from "../../context";
import type { TCte } from "../../db-cte";
import { appendChangeSql, stampCheckedSql, type TChangeCitation, writeCurrentStateSql } from "../../timeline";
import type { TRecord } from "../definition";
import type { TDeltas } from "../diff";
import type { TDecision } from "./decide-change";

/**
 * The timeline's part of a run's one final write: `at` is the run's end, which every time they write is; each part is
 * guarded on `guard` (the lease fence), so a run that lost its lease writes none of them (docs/design.md §3).
 */
export type TTimelineWrites = (at: Date, guard: string) => TCte[];

/**
 * Unchanged (or re-hashed under a new document format): the state stamp only, as data — a counted check writes it as
 * a row of its statement's one stamp (run-record.ts TCountedWrite), any other run as a part of its own (`timelineCtes`).
 */
export type TStampWrite = { stamp: { entityId: string; contentHash: string } };

export function stampWrites(input: { entityId: string; contentHash: string }): TStampWrite {
  return { stamp: { entityId: input.entityId, contentHash: input.contentHash } };
}

/** A run's timeline writes as parts of its own statement. */
export function timelineCtes(writes: TTimelineWrites | TStampWrite): TTimelineWrites {
  if (typeof writes === "function") return writes;
  const { entityId, contentHash } = writes.stamp;
  return (at, guard) => [stampCheckedSql({ entityId, contentHash, checkedAt: at, guard })];
}

/** First run: the baseline change row and the first state. */
export function baselineWrites(input: {
  entityId: string;
  trackerId: string;
  runId: string;
  version: number;
  deltas: TDeltas;
  fields: TRecord;
  contentHash: string;
}): TTimelineWrites {
  return (capturedAt, guard) => [
    ...appendChangeSql({
      entityId: input.entityId,
      trackerId: input.trackerId,
      runId: input.runId,
      capturedAt,
      delta: input.deltas,
      materiality: "baseline",
      decisions: {},
      definitionVersion: input.version,
      guard,
    }),
    writeCurrentStateSql({
      entityId: input.entityId,
      fields: input.fields,
      contentHash: input.contentHash,
      definitionVersion: input.version,
      checkedAt: capturedAt,
      guard,
    }),
  ];
}

/** A judged change: the kept context values, the change row when it is recorded, and the new state. */
export function judgedWrites(input: {
  userId: string;
  entityId: string;
  trackerId: string;
  runId: string;
  version: number;
  bound: Record<string, TResolvedContextValue | null>;
  /** material / notable → a change row; noise → none, only the state. */
  recorded: "material" | "notable" | null;
  kept: TDeltas;
  decisions: Record<string, TDecision>;
  citations: TChangeCitation[];
  nextFields: TRecord;
  observed: TRecord;
  contentHash: string;
}): TTimelineWrites {
  return (capturedAt, guard) => [
    // The values read from context files, kept so that a rule whose file goes keeps deciding with them.
    ...keepBoundValuesSql({
      userId: input.userId,
      trackerId: input.trackerId,
      version: input.version,
      bound: input.bound,
      at: capturedAt,
      guard,
    }),
    ...(input.recorded
      ? appendChangeSql({
          entityId: input.entityId,
          trackerId: input.trackerId,
          runId: input.runId,
          capturedAt,
          delta: input.kept,
          materiality: input.recorded,
          decisions: input.decisions,
          citations: input.citations,
          definitionVersion: input.version,
          guard,
        })
      : []),
    writeCurrentStateSql({
      entityId: input.entityId,
      fields: input.nextFields,
      observed: input.observed,
      contentHash: input.contentHash,
      definitionVersion: input.version,
      checkedAt: capturedAt,
      guard,
    }),
  ];
}

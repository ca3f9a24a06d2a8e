import type { LanguageModel } from "ai";
import { resolveBoundValues, retrieveContextChunks } from "../../context";
import type { TDb } from "../../db";
import { listRunCaptures, loadCapturePayloads, type TRunCapture } from "../../timeline";
import { NOTABLE_SIGNALS, type TRecord, type TTrackerDefinition } from "../definition";
import { diffRecords, type TDeltas } from "../diff";
import { addUsage, type TModelUsage, ZERO_USAGE } from "../fill";
import type { TContextRetriever } from "../judge";
import { acceptFields, judgeAll, outcomeOf, type TDecision } from "../refresh/decide-change";
import { carryMissingFields } from "../refresh/field-health";
import {
  boundForReplay,
  fillKeysOf,
  judgeKeysOf,
  parseReplayBasis,
  storedVerdict,
  ZCapturePayloadSchema,
} from "./replay-basis";
import { replayFill } from "./replay-fill";
import { createSetReplay } from "./replay-set";

/** Captures decoded at once: a long history never sits in memory whole. */
const PAYLOAD_BATCH = 50;

export type TReplayedEntry = {
  runId: string;
  entityId: string;
  /** When the run that saw this capture ended. */
  at: Date;
  materiality: "material" | "notable" | "baseline";
  delta: TDeltas;
  decisions: Record<string, TDecision>;
  definitionVersion: number;
  /** Fields left to the agent that nobody asked (rules mode, or the model budget was spent). */
  wouldAsk: string[];
};

export type TReplayDefinitionInput = {
  userId: string;
  decision: string;
  definition: TTrackerDefinition;
  /** The version number the replayed definition has (or will have once locked). */
  version: number;
  from?: Date;
  to?: Date;
  models: { filler: LanguageModel | null; judge: LanguageModel | null };
  /** Model calls this replay may make (fill and judge together). 0 → none: code and stored verdicts only. */
  modelBudget: number;
  retrieveContext?: TContextRetriever;
  /** The owner's monthly token budget, checked before each model call. */
  beforeModelCall?: () => Promise<void>;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
};

export type TReplayDefinitionResult = {
  entries: TReplayedEntry[];
  /** The runs of the period that stored a capture, in order (the recorded side is read for exactly these). */
  runIds: string[];
  /** Captures judged (the starting point before `from` is read, not counted). */
  captures: number;
  modelCalls: number;
  usage: TModelUsage;
  /** Model calls a full replay would still need: fields no rule, stored value or verdict could stand in for. */
  modelCallsNeeded: number;
  /** Fields answered from what was stored when they were first decided (same input, same rule). */
  reused: number;
  /** Captures with fields left to the agent. */
  wouldAskCaptures: number;
  cancelled: boolean;
  from: Date | null;
  to: Date | null;
};

/**
 * Replay (docs/replay.md): runs fill → diff → judge over a tracker's stored captures in order, in memory, under any
 * definition — writing nothing. It is the refresh's own decision code (decide-change.ts), so replaying the locked
 * definition reproduces the recorded timeline: code rules decide for free, and a field the model decided keeps its
 * stored verdict while its delta and rule are unchanged. What still needs the model is asked within `modelBudget`
 * or marked "would ask the agent". The state before `from` is the capture just before it (read, not reported).
 * A set (a `set` part) is walked member by member with the set refresh's own pure functions (replay-set.ts), so its
 * entries are its roll-ups. Ownership is the caller's job.
 */
export async function replayDefinition(
  db: TDb,
  trackerId: string,
  input: TReplayDefinitionInput,
): Promise<TReplayDefinitionResult> {
  const def = input.definition;
  const { before, inPeriod } = await listRunCaptures(db, {
    trackerId,
    ...(input.from ? { from: input.from } : {}),
    ...(input.to ? { to: input.to } : {}),
  });
  const sequence: TRunCapture[] = before ? [before, ...inPeriod] : inPeriod;
  const fillKeys = fillKeysOf(def, input.decision);
  const judgeKeys = judgeKeysOf(def, input.decision);
  const owner = { userId: input.userId, trackerId };
  // Bound context values: each capture is judged with what its refresh compared with (stored beside it); a capture
  // stored without them takes the values as they are now — read once, a kept one when its file went.
  const current = def.contextRules?.length
    ? await resolveBoundValues(db, { ...owner, version: input.version, values: def.contextValues ?? [] })
    : {};
  const retrieve = input.retrieveContext ?? ((q) => retrieveContextChunks(db, q));
  const beforeModelCall = input.beforeModelCall ?? (async () => {});

  const states = new Map<string, TRecord>();
  const entries: TReplayedEntry[] = [];
  let modelCalls = 0;
  let usage = ZERO_USAGE;
  let modelCallsNeeded = 0;
  let reused = 0;
  let wouldAskCaptures = 0;
  let done = 0;
  let cancelled = false;
  const mayAsk = (model: LanguageModel | null) => () => model !== null && modelCalls < input.modelBudget;
  // A set's captures hold its members: walked member by member, as its refresh read them (replay-set.ts).
  const setStep = def.set
    ? createSetReplay(db, {
        def: { ...def, set: def.set },
        decision: input.decision,
        version: input.version,
        owner,
        judgeKeys,
        model: input.models.judge,
        retrieve,
        beforeModelCall,
        bound: current,
      })
    : null;

  outer: for (let start = 0; start < sequence.length; start += PAYLOAD_BATCH) {
    const batch = sequence.slice(start, start + PAYLOAD_BATCH);
    const payloads = await loadCapturePayloads(db, { trackerId, captureIds: batch.map((r) => r.captureId) });
    for (const run of batch) {
      if (input.signal?.aborted) {
        cancelled = true;
        break outer;
      }
      const reported = run !== before;
      const payload = ZCapturePayloadSchema.safeParse(payloads.get(run.captureId));
      if (!payload.success) continue; // thinned between the listing and the read, or an unknown shape
      if (setStep) {
        const step = await setStep({
          document: payload.data.raw.json,
          basis: run.basis,
          at: run.at,
          // Each changed member is one judge call: the budget counts the calls made in this capture too.
          mayAsk: (spent) => reported && input.models.judge !== null && modelCalls + spent < input.modelBudget,
        });
        if (!step) continue; // not a set's capture (the tracker read one page then)
        modelCalls += step.modelCalls;
        usage = addUsage(usage, step.usage);
        reused += step.reused;
        if (!reported) continue;
        if (step.entry) {
          const { materiality, delta, decisions } = step.entry;
          entries.push(entry(run, input.version, materiality, delta, decisions, step.wouldAsk));
        }
        if (step.wouldAsk.length) wouldAskCaptures++;
        modelCallsNeeded += step.modelCallsNeeded;
        done++;
        input.onProgress?.(done, inPeriod.length);
        continue;
      }
      const basis = parseReplayBasis(run.basis);
      const filled = await replayFill({
        def,
        raw: payload.data.raw,
        basis,
        fillKeys,
        model: input.models.filler,
        mayAsk: reported ? mayAsk(input.models.filler) : () => false,
        decision: input.decision,
        source: payload.data.source,
        beforeModelCall,
      });
      modelCalls += filled.modelCalls;
      usage = addUsage(usage, filled.usage);
      const previous = states.get(run.entityId) ?? null;
      // A field that stopped reading is a miss, not a change, as on the refresh (docs/field-health.md).
      const record = carryMissingFields(def, previous, filled.record);
      const deltas = diffRecords(previous, record, def);
      const wouldAsk = [...filled.wouldAsk];

      if (previous === null) {
        // The first capture of an entity is its baseline, as on the first refresh.
        states.set(run.entityId, filled.record);
        if (reported) {
          entries.push(entry(run, input.version, "baseline", deltas, {}, wouldAsk));
          if (wouldAsk.length) wouldAskCaptures++;
        }
      } else if (run.outcome === "unchanged" && Object.keys(deltas).every((f) => f === NOTABLE_SIGNALS)) {
        // A one-time re-hash under a new page format: the refresh kept its state and recorded nothing.
      } else {
        const judged = await judgeAll(db, def, deltas, {
          decision: input.decision,
          owner,
          version: input.version,
          model: input.models.judge,
          retrieve,
          beforeModelCall,
          bound: def.contextRules?.length ? boundForReplay(def, basis, current) : current,
          reuse: (field, delta) => {
            const stored = storedVerdict(basis, judgeKeys, field, delta);
            if (stored) reused++;
            return stored;
          },
          mayAsk: reported ? mayAsk(input.models.judge) : () => false,
        });
        modelCalls += judged.modelCalls;
        usage = addUsage(usage, judged.usage);
        wouldAsk.push(...judged.wouldAsk);
        const { outcome, kept } = outcomeOf(deltas, judged.byField);
        if (reported && (outcome === "material" || outcome === "notable")) {
          entries.push(entry(run, input.version, outcome, kept, judged.byField, wouldAsk));
        }
        if (reported && wouldAsk.length) wouldAskCaptures++;
        states.set(run.entityId, acceptFields(def, previous, record, deltas, judged.byField));
      }
      if (reported) {
        modelCallsNeeded += (filled.wouldAsk.length ? 1 : 0) + (wouldAsk.length > filled.wouldAsk.length ? 1 : 0);
        done++;
        input.onProgress?.(done, inPeriod.length);
      }
    }
  }
  return {
    entries,
    runIds: inPeriod.map((r) => r.runId),
    captures: inPeriod.length,
    modelCalls,
    usage,
    modelCallsNeeded,
    reused,
    wouldAskCaptures,
    cancelled,
    from: inPeriod[0]?.at ?? null,
    to: inPeriod.at(-1)?.at ?? null,
  };
}

function entry(
  run: TRunCapture,
  version: number,
  materiality: TReplayedEntry["materiality"],
  delta: TDeltas,
  decisions: Record<string, TDecision>,
  wouldAsk: string[],
): TReplayedEntry {
  return {
    runId: run.runId,
    entityId: run.entityId,
    at: run.at,
    materiality,
    delta,
    decisions,
    definitionVersion: version,
    wouldAsk,
  };
}

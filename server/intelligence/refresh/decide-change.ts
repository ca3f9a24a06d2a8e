import type { LanguageModel } from "ai";
import { resolveBoundValues, type TResolvedContextValue } from "../../context";
import type { TDb } from "../../db";
import type { TChangeCitation } from "../../timeline";
import { effectiveFields, type TRecord, type TTrackerDefinition } from "../definition";
import type { TDelta, TDeltas } from "../diff";
import { type TModelUsage, ZERO_USAGE } from "../fill";
import {
  buildCitations,
  contextQueryFor,
  describeFieldsForJudge,
  judgeDeltas,
  judgeDeltasRulesMode,
  type TContextRetriever,
  type TJudgeVerdict,
} from "../judge";
import { evaluateContextRules, evaluateDeltas, pickUndecided, summariseVerdicts } from "../materiality";
import { describeDeltas } from "./describe-outcome";

/**
 * The judging half of a refresh, shared by the hot loop and replay (docs/replay.md), so a replay of the locked
 * definition decides exactly as the refresh did: code rules (context rules first), then ONE model call for the rest,
 * then which deltas are kept and which record becomes the next baseline.
 */

/** Per field, how it was decided (stored on the change row and shown in the timeline). */
export type TDecision = {
  verdict: "material" | "notable" | "noise";
  decidedBy: "code" | "agent";
  reason: string;
  rule?: string;
};

export type TJudgeAllInput = {
  decision: string;
  owner: { userId: string; trackerId: string };
  /** The locked version judged under: a bound value its file no longer gives falls back to this version's kept one. */
  version: number;
  model: LanguageModel | null;
  retrieve: TContextRetriever;
  beforeModelCall: () => Promise<void>;
  maxRetries?: number;
  /** Values bound from context files, read by a caller that judges many deltas (replay); else read here. */
  bound?: Record<string, TResolvedContextValue | null>;
  /** Replay: a verdict stored when this very delta was judged under the same rule — taken instead of asking. */
  reuse?: (field: string, delta: TDelta) => TDecision | null;
  /**
   * Replay: whether a model call may be made now (budget). false → what is left gets the rules-mode verdict and is
   * listed in `wouldAsk` ("would ask the agent"). The refresh always may (rules mode is `model: null`).
   */
  mayAsk?: () => boolean;
};

export type TJudgeAllResult = {
  byField: Record<string, TDecision>;
  citations: TChangeCitation[];
  modelCalls: number;
  usage: TModelUsage;
  /** Fields left to the agent that nobody asked (replay without budget). */
  wouldAsk: string[];
  /** The bound values the context rules compared with ({} without context rules): kept, and stored for replay. */
  bound: Record<string, TResolvedContextValue | null>;
};

/**
 * Rules first (free, reproducible), then ONE model call for what they cannot decide, with the most relevant chunks
 * of this tracker's context files (docs/context-files.md); the excerpts it saw and the ones it cited go on the change
 * row. Rules mode still retrieves them, so the files are listed beside the changes it leaves to the person.
 */
export async function judgeAll(
  db: TDb,
  def: TTrackerDefinition,
  deltas: TDeltas,
  input: TJudgeAllInput,
): Promise<TJudgeAllResult> {
  // Context rules first: values bound from the files, read now (only on this changed path), decided by code. A value
  // whose file went decides with the one it gave last (server/context/kept-context-values.ts), never with nothing.
  const bound =
    input.bound ??
    (def.contextRules?.length
      ? await resolveBoundValues(db, { ...input.owner, version: input.version, values: def.contextValues ?? [] })
      : {});
  const byContext = evaluateContextRules(deltas, def, bound);
  const byCode = { ...evaluateDeltas(deltas, def), ...byContext.verdicts };
  const byField: Record<string, TDecision> = {};
  for (const [field, v] of Object.entries(byCode)) {
    if (v.verdict !== "undecided") {
      byField[field] = { verdict: v.verdict, decidedBy: "code", reason: v.reason, rule: v.rule.kind };
    }
  }
  const undecided = pickUndecided(deltas, byCode);
  for (const [field, delta] of Object.entries(undecided)) {
    const stored = input.reuse?.(field, delta);
    if (!stored) continue;
    byField[field] = stored;
    delete undecided[field];
  }
  if (Object.keys(undecided).length === 0)
    return { byField, citations: byContext.citations, modelCalls: 0, usage: ZERO_USAGE, wouldAsk: [], bound };
  if (input.mayAsk && !input.mayAsk()) {
    for (const [field, v] of Object.entries(judgeDeltasRulesMode(undecided))) {
      byField[field] = { verdict: v.verdict, decidedBy: v.decidedBy, reason: "would ask the agent" };
    }
    return {
      byField,
      citations: byContext.citations,
      modelCalls: 0,
      usage: ZERO_USAGE,
      wouldAsk: Object.keys(undecided),
      bound,
    };
  }
  const query = contextQueryFor(input.decision, undecided);
  const context = await input.retrieve({ ...input.owner, query, limit: 5 });
  const judged = await judgeDeltas({
    decision: input.decision,
    deltas: undecided,
    fieldDescriptions: describeFieldsForJudge(def, Object.keys(undecided)),
    context,
    model: input.model,
    beforeModelCall: input.beforeModelCall,
    ...(input.maxRetries !== undefined ? { maxRetries: input.maxRetries } : {}),
  });
  // Only the fields the judge was asked about take its verdict: a code verdict is never replaced,
  // whatever the answer (or a page it read) says (docs/design.md §3 step 5, §8).
  for (const field of Object.keys(undecided)) {
    if (!Object.hasOwn(judged.verdicts, field) || Object.hasOwn(byField, field)) continue;
    const v = judged.verdicts[field] as TJudgeVerdict;
    byField[field] = { verdict: v.verdict, decidedBy: v.decidedBy, reason: v.reason };
  }
  const citations = buildCitations({
    chunks: context,
    verdicts: judged.verdicts,
    fields: Object.keys(undecided),
    query,
  });
  return { byField, citations, modelCalls: judged.modelCalls, usage: judged.usage, wouldAsk: [], bound };
}

/** What a judged change comes to: the outcome, the kept deltas (what the timeline records) and a one-line summary. */
export function outcomeOf(
  deltas: TDeltas,
  byField: Record<string, TDecision>,
): { outcome: "material" | "notable" | "noise"; kept: TDeltas; summary: string } {
  const overall = summariseVerdicts(byField);
  const kept = pickDeltas(deltas, byField, (v) => v !== "noise");
  const outcome = overall === "none" ? ("noise" as const) : overall;
  const summary =
    overall === "material" || overall === "notable"
      ? `${overall}: ${describeDeltas(kept)}`
      : Object.keys(deltas).length
        ? `noise: ${describeDeltas(deltas)}`
        : "no tracked field changed";
  return { outcome, kept, summary };
}

function pickDeltas(
  deltas: TDeltas,
  decisions: Record<string, TDecision>,
  keep: (verdict: TDecision["verdict"]) => boolean,
): TDeltas {
  const out: TDeltas = {};
  for (const [field, delta] of Object.entries(deltas)) {
    const d = decisions[field];
    if (!d || keep(d.verdict)) out[field] = delta;
  }
  return out;
}

/**
 * The record the next refresh diffs against. A value a numeric threshold called noise keeps its old
 * baseline, so slow drift still crosses the threshold; everything else takes the new value (a reword
 * the agent called noise is not re-judged on every later refresh).
 */
export function acceptFields(
  def: TTrackerDefinition,
  previous: TRecord | null,
  next: TRecord,
  deltas: TDeltas,
  decisions: Record<string, TDecision>,
): TRecord {
  const out: TRecord = {};
  for (const field of effectiveFields(def)) {
    const d = decisions[field.name];
    const keepBaseline = deltas[field.name] && d?.verdict === "noise" && d.decidedBy === "code" && d.rule === "numeric";
    out[field.name] = keepBaseline && previous ? (previous[field.name] ?? null) : (next[field.name] ?? null);
  }
  return out;
}

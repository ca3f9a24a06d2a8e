import { createHash } from "node:crypto";
import { z } from "zod";
import { ZContextValueSchema } from "@/contracts/definition/context-rule-schema";
import { ZChangeDecisionsSchema, ZChangeDeltaSchema } from "@/contracts/timeline";
import type { TResolvedContextValue } from "../../context";
import { canonicalJson } from "../../lib/canonical-json";
import { effectiveFields, ruleForField, type TRecord, type TTrackerDefinition } from "../definition";
import type { TDeltas } from "../diff";
import type { TRawCapture } from "../fill";
import type { TDecision } from "../refresh/decide-change";
import { sourceOrder } from "../set/member-order";

/**
 * What a changed refresh stores beside its capture so that a replay can stand in for the model (docs/replay.md): the
 * record it filled, what it judged, and per field a key of everything that shaped each answer. Same key, same input
 * → the stored answer still holds; anything else needs the model again.
 */

/** A CSS query's answer as the crawl stored it (capabilities' TCssAnswer). */
const ZCssAnswerSchema = z.union([
  z.object({ ok: z.literal(true), values: z.array(z.string().nullable()) }),
  z.object({ ok: z.literal(false), reason: z.enum(["no_match", "invalid_selector"]) }),
]);

export type TCapturePayload = { raw: TRawCapture; entityKey: string; source: string };

/**
 * What the capture row holds (compressed): the raw data the fill step reads, the entity and where it came from.
 * A page's text is its document's `mainText` (read-capture.ts), so it is stored once: `textIsMainText` says to read
 * it back from there (captures written before it carry `raw.text` themselves and parse the same).
 */
export const ZCapturePayloadSchema = z
  .object({
    raw: z.object({
      json: z.unknown(),
      html: z.string().optional(),
      text: z.string().optional(),
      css: z.record(z.string(), ZCssAnswerSchema).optional(),
    }),
    entityKey: z.string(),
    source: z.string(),
    textIsMainText: z.literal(true).optional(),
  })
  .transform(({ textIsMainText, ...payload }): TCapturePayload => {
    const mainText = (payload.raw.json as { mainText?: unknown } | null)?.mainText;
    if (!textIsMainText || typeof mainText !== "string") return payload;
    return { ...payload, raw: { ...payload.raw, text: mainText } };
  });

/** The payload as stored: a page's text not twice (ZCapturePayloadSchema reads it back). */
export function storedCapturePayload(payload: TCapturePayload): z.input<typeof ZCapturePayloadSchema> {
  const mainText = (payload.raw.json as { mainText?: unknown } | null)?.mainText;
  if (payload.raw.text === undefined || payload.raw.text !== mainText) return payload;
  const { text: _sameAsMainText, ...raw } = payload.raw;
  return { ...payload, raw, textIsMainText: true };
}

/** A value bound from a context file as a refresh compared with it (server/context TResolvedContextValue). */
const ZBoundValueSchema = z.object({
  value: z.number(),
  fileId: z.string(),
  fileName: z.string(),
  location: z.string(),
  quote: z.string(),
  kept: z.object({ reason: z.enum(["removed", "replaced"]), since: z.string().nullable() }).optional(),
}) satisfies z.ZodType<TResolvedContextValue>;

export const ZReplayBasisSchema = z.object({
  observed: z.record(z.string(), z.unknown()),
  /** field → key of what its fill depended on (field spec + the decision). */
  fillKeys: z.record(z.string(), z.string()),
  /** field → key of what its verdict depended on (field spec + its rule + the decision). */
  judgeKeys: z.record(z.string(), z.string()),
  deltas: ZChangeDeltaSchema,
  decisions: ZChangeDecisionsSchema,
  /**
   * contextValues name → the binding and the value its context rules compared with (null: no file gave one), so a
   * replay decides with what the refresh saw, not with what the files say later. Absent without context rules.
   */
  bound: z
    .record(z.string(), z.object({ binding: ZContextValueSchema, value: ZBoundValueSchema.nullable() }))
    .optional(),
  /** A set's read (docs/sets.md): what its capture alone does not say. Absent for a single entity. */
  set: z
    .object({
      /**
       * Where each member, in the source's order, sits in the capture's key-sorted document (sourceOrder); absent when
       * the source listed them sorted. The order decides which members a cap keeps and how the roll-up names them.
       */
      order: z.array(z.number().int().nonnegative()).optional(),
      /** member key → its fields no code rule decided (the agent's, or rules mode's) with their deltas: reused. */
      judged: z
        .record(z.string(), z.object({ deltas: ZChangeDeltaSchema, decisions: ZChangeDecisionsSchema }))
        .optional(),
    })
    .optional(),
});
export type TReplayBasis = z.infer<typeof ZReplayBasisSchema>;
export type TSetReplayBasis = NonNullable<TReplayBasis["set"]>;

function key(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 16);
}

export function fillKeysOf(def: TTrackerDefinition, decision: string): Record<string, string> {
  return keysOf(def, decision).fill;
}

export function judgeKeysOf(def: TTrackerDefinition, decision: string): Record<string, string> {
  return keysOf(def, decision).judge;
}

/**
 * A locked definition is frozen (parseLockedDefinition) and so are its keys: every changed refresh of it stores the
 * same ones, computed once per definition and decision (a draft, not frozen, is keyed afresh each time).
 */
const keysCache = new WeakMap<TTrackerDefinition, Map<string, TKeys>>();
type TKeys = { fill: Record<string, string>; judge: Record<string, string> };

function keysOf(def: TTrackerDefinition, decision: string): TKeys {
  const frozen = Object.isFrozen(def);
  const cached = frozen ? keysCache.get(def)?.get(decision) : undefined;
  if (cached) return cached;
  const fields = effectiveFields(def);
  const keys: TKeys = {
    fill: Object.fromEntries(fields.map((f) => [f.name, key({ field: f, decision })])),
    judge: Object.fromEntries(
      fields.map((f) => [f.name, key({ field: f, rule: ruleForField(def, f.name), decision })]),
    ),
  };
  if (frozen) {
    Object.freeze(keys.fill);
    Object.freeze(keys.judge);
    const byDecision = keysCache.get(def) ?? new Map<string, TKeys>();
    byDecision.set(decision, keys);
    keysCache.set(def, byDecision);
  }
  return keys;
}

export function replayBasisOf(input: {
  def: TTrackerDefinition;
  decision: string;
  observed: TRecord;
  deltas: TDeltas;
  decisions: Record<string, TDecision>;
  /** What the context rules compared with (judgeAll's `bound`); none on a run that judged nothing. */
  bound?: Record<string, TResolvedContextValue | null>;
  /** A set's read: setReplayBasisOf. */
  set?: TSetReplayBasis;
}): TReplayBasis {
  const bound = Object.fromEntries(
    (input.def.contextValues ?? []).flatMap((binding) =>
      input.bound && Object.hasOwn(input.bound, binding.name)
        ? [[binding.name, { binding, value: input.bound[binding.name] ?? null }]]
        : [],
    ),
  );
  return {
    observed: input.observed,
    fillKeys: fillKeysOf(input.def, input.decision),
    judgeKeys: judgeKeysOf(input.def, input.decision),
    deltas: input.deltas,
    decisions: input.decisions,
    ...(Object.keys(bound).length ? { bound } : {}),
    ...(input.set && Object.keys(input.set).length ? { set: input.set } : {}),
  };
}

/**
 * What a set's run stores beside its capture for a replay (docs/replay.md): the source's order of its members, and
 * per judged member the fields no code rule decided, so their verdicts stand in for the model as a single entity's do.
 * Code verdicts are left out: code decides them again, for free.
 */
export function setReplayBasisOf(input: {
  items: readonly { key: string }[];
  judged: readonly { item: { key: string }; deltas: TDeltas; byField: Record<string, TDecision> }[];
}): TSetReplayBasis {
  const judged: NonNullable<TSetReplayBasis["judged"]> = {};
  for (const member of input.judged) {
    const fields = Object.keys(member.byField).filter((f) => member.byField[f]?.rule === undefined && member.deltas[f]);
    if (fields.length === 0) continue;
    judged[member.item.key] = {
      deltas: Object.fromEntries(fields.map((f) => [f, member.deltas[f] as TDeltas[string]])),
      decisions: Object.fromEntries(fields.map((f) => [f, member.byField[f] as TDecision])),
    };
  }
  const order = sourceOrder(input.items);
  return { ...(order ? { order } : {}), ...(Object.keys(judged).length ? { judged } : {}) };
}

/**
 * The bound values to replay a capture with: per binding, what the refresh compared with when it judged this capture
 * under the same binding (same label, column and file), else `current` (the files now, or the kept value).
 */
export function boundForReplay(
  def: TTrackerDefinition,
  basis: TReplayBasis | null,
  current: Record<string, TResolvedContextValue | null>,
): Record<string, TResolvedContextValue | null> {
  if (!basis?.bound) return current;
  const out = { ...current };
  for (const binding of def.contextValues ?? []) {
    const recorded = basis.bound[binding.name];
    if (recorded && canonicalJson(recorded.binding) === canonicalJson(binding)) out[binding.name] = recorded.value;
  }
  return out;
}

/** A stored basis, or null when the column is empty or from an unknown shape (then nothing is reused). */
export function parseReplayBasis(value: unknown): TReplayBasis | null {
  const parsed = ZReplayBasisSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** What a verdict was stored with: the judge keys of its run, and the deltas and verdicts judged then. */
export type TStoredJudgement = Pick<TReplayBasis, "judgeKeys" | "deltas" | "decisions">;

/**
 * The verdict stored when this very delta was judged under the same rule, field description and decision: it
 * stands in for the model. Code verdicts are never reused (code decides again, for free).
 */
export function storedVerdict(
  stored: TStoredJudgement | null,
  judgeKeys: Record<string, string>,
  field: string,
  delta: { from: unknown; to: unknown },
): TDecision | null {
  if (!stored || stored.judgeKeys[field] !== judgeKeys[field]) return null;
  const storedDelta = stored.deltas[field];
  const decision = stored.decisions[field];
  if (!storedDelta || !decision || canonicalJson(storedDelta) !== canonicalJson(delta)) return null;
  const verdict = decision.verdict;
  if (verdict !== "material" && verdict !== "notable" && verdict !== "noise") return null;
  return {
    verdict,
    decidedBy: decision.decidedBy === "agent" ? "agent" : "code",
    reason: typeof decision.reason === "string" ? decision.reason : "",
    ...(typeof decision.rule === "string" ? { rule: decision.rule } : {}),
  };
}

/** A set member's stored judgement in a run's basis (setReplayBasisOf), or null. */
export function storedMemberJudgement(basis: TReplayBasis | null, key: string): TStoredJudgement | null {
  const judged = basis?.set?.judged?.[key];
  return basis && judged ? { judgeKeys: basis.judgeKeys, ...judged } : null;
}

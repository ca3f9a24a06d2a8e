import { z } from "zod";
import { zRequestDate } from "./dates";
import { ZChangeDecisionsSchema, ZChangeDeltaSchema, ZChangeMaterialitySchema } from "./timeline";

/**
 * Replay (docs/replay.md): what a definition would have recorded over the captures already stored, before it is locked.
 * Shared by tRPC, the REST route `POST /api/v1/trackers/{id}/replay` and the page's streaming route.
 */

export const REPLAY_MAX_MODEL_BUDGET = 200;

export const ZReplayRequestSchema = z.object({
  trackerId: z.string().min(1),
  /** Start of the period (inclusive; ISO 8601 date or date-time). Default: the first stored capture. */
  from: zRequestDate("from").optional(),
  /** End of the period (inclusive). Default: now. */
  to: zRequestDate("to").optional(),
  /**
   * Which definition to replay: "draft" (the open draft of the next version, the default when there is one) or
   * "locked" (the version in force — replaying it reproduces the recorded timeline).
   */
  definition: z.enum(["draft", "locked"]).optional(),
  /** Model calls this replay may make for fields no rule or stored verdict can decide. 0 (default) = none. */
  modelBudget: z.number().int().min(0).max(REPLAY_MAX_MODEL_BUDGET).default(0),
  /**
   * true → only the first pass, which asks no model: how many captures and model calls a full replay would need,
   * with what code rules and stored verdicts alone would record (fields left to the agent marked "would ask").
   */
  planOnly: z.boolean().default(false),
});
export type TReplayRequest = z.input<typeof ZReplayRequestSchema>;

/** One timeline entry, recorded or replayed (dates as ISO strings: this travels as JSON). */
export const ZReplayEntrySchema = z.object({
  runId: z.string(),
  capturedAt: z.string(),
  materiality: ZChangeMaterialitySchema,
  delta: ZChangeDeltaSchema,
  decisions: ZChangeDecisionsSchema,
  definitionVersion: z.number().int(),
  /** Fields the replay could not decide without the model (rules mode or budget spent): "would ask the agent". */
  wouldAsk: z.array(z.string()).default([]),
});
export type TReplayEntry = z.infer<typeof ZReplayEntrySchema>;

export const ZReplayPlanSchema = z.object({
  captures: z.number().int(),
  /** Captures whose fields need a model call no stored verdict or value can stand in for. */
  modelCallsNeeded: z.number().int(),
  /** Model decisions answered from what was stored when they were made (same delta, same rule). */
  reusable: z.number().int(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  /** Version of the definition being replayed, and the one in force. */
  version: z.number().int(),
  lockedVersion: z.number().int().nullable(),
  /** Whether this server can call a model at all (false = rules mode). */
  modelAvailable: z.boolean(),
});
export type TReplayPlan = z.infer<typeof ZReplayPlanSchema>;

export const ZReplayResultSchema = z.object({
  plan: ZReplayPlanSchema,
  /** The timeline as recorded over the period (entries whose run has a stored capture in the period). */
  recorded: z.array(ZReplayEntrySchema),
  /** What the replayed definition would have recorded over the same captures. */
  replayed: z.array(ZReplayEntrySchema),
  /** Side by side, matched by run. */
  added: z.array(z.string()).describe("runIds recorded only by the replay"),
  removed: z.array(z.string()).describe("runIds recorded only in the timeline"),
  changed: z.array(z.string()).describe("runIds in both whose materiality or delta differ"),
  counts: z.object({
    recordedMaterial: z.number().int(),
    replayedMaterial: z.number().int(),
    recordedNotable: z.number().int(),
    replayedNotable: z.number().int(),
  }),
  modelCalls: z.number().int(),
  /** Captures with fields left to the agent. */
  wouldAsk: z.number().int(),
  /** One sentence: "would have recorded 3 material changes instead of 11; would have missed: price 49 → 44 on 12 Nov". */
  summary: z.string(),
  cancelled: z.boolean(),
});
export type TReplayResult = z.infer<typeof ZReplayResultSchema>;

/**
 * The page's streaming route sends one JSON object per line: `progress` over the first pass (code rules and stored
 * verdicts, no model call), then `plan` (what a full replay needs, before any model call), then `progress` again
 * when there is a model pass, then `result` — or `error`.
 */
export const ZReplayEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("plan"), plan: ZReplayPlanSchema }),
  z.object({ type: z.literal("progress"), done: z.number().int(), total: z.number().int() }),
  z.object({ type: z.literal("result"), result: ZReplayResultSchema }),
  z.object({ type: z.literal("error"), code: z.string(), message: z.string() }),
]);
export type TReplayEvent = z.infer<typeof ZReplayEventSchema>;

// ---- For the routes and the page ----

const periodInOrder = (q: { from?: Date | undefined; to?: Date | undefined }) => !(q.from && q.to && q.from > q.to);
const PERIOD_BACKWARDS = { message: "The start date must not be after the end date.", path: ["from"] };

/**
 * The replay request as every surface validates it (tRPC, REST, the page's streaming route): ZReplayRequestSchema
 * whose period must not run backwards (a 400 naming `from`, as the timeline's window is).
 */
export const ZReplayCheckedRequestSchema = ZReplayRequestSchema.refine(periodInOrder, PERIOD_BACKWARDS);
export const ZReplayResponseSchema = ZReplayResultSchema;

/** The page's streaming route takes the tracker from its path: the body is the rest of the request. */
export const ZReplayStreamBodySchema = ZReplayRequestSchema.omit({ trackerId: true }).refine(
  periodInOrder,
  PERIOD_BACKWARDS,
);

/** "Lock with history" (tracker.rejudgeHistory): re-judge the stored captures under the version in force. */
export const ZRejudgeHistoryRequestSchema = z
  .object({
    trackerId: z.string().min(1),
    from: zRequestDate("from").optional(),
    to: zRequestDate("to").optional(),
  })
  .refine(periodInOrder, PERIOD_BACKWARDS);
export const ZRejudgeHistoryResponseSchema = z.object({
  version: z.number().int(),
  captures: z.number().int(),
  recorded: z.number().int(),
  summary: z.string(),
});
export type TRejudgeHistoryResponse = z.infer<typeof ZRejudgeHistoryResponseSchema>;

import { z } from "zod";

/** One value in a filled record (mirrors TRecordValue in intelligence/definition/record-types.ts). */
export const ZRecordValueSchema = z.union([
  z.number(),
  z.string(),
  z.boolean(),
  z.array(z.string()),
  z.object({ amount: z.number(), currency: z.string() }),
  z.null(),
]);

/** `{field: {from, to}}` — only fields that changed. */
export const ZChangeDeltaSchema = z.record(z.string(), z.object({ from: ZRecordValueSchema, to: ZRecordValueSchema }));
export type TChangeDelta = z.infer<typeof ZChangeDeltaSchema>;

/**
 * How one field's delta was judged. `baseline` is accepted for first-run rows; `rule` is the
 * materiality rule that fired when code decided. Extra keys are kept (looseObject) so the engine
 * can add detail without a migration of old rows.
 */
export const ZFieldDecisionSchema = z.looseObject({
  verdict: z.enum(["material", "notable", "noise", "baseline"]),
  decidedBy: z.enum(["code", "agent"]),
  reason: z.string(),
  rule: z.unknown().optional(),
});
export type TFieldDecision = z.infer<typeof ZFieldDecisionSchema>;

export const ZChangeDecisionsSchema = z.record(z.string(), ZFieldDecisionSchema);
export type TChangeDecisions = z.infer<typeof ZChangeDecisionsSchema>;

export const CHANGE_MATERIALITIES = ["material", "notable", "baseline"] as const;
export const ZChangeMaterialitySchema = z.enum(CHANGE_MATERIALITIES);
export type TChangeMateriality = z.infer<typeof ZChangeMaterialitySchema>;

/**
 * A context-file excerpt the judge consulted for a change (docs/context-files.md). `quote` is copied from the chunk, so the reason
 * stays readable after the file is deleted; `cited` says the model named it as a reason (rules mode lists the
 * excerpts beside ambiguous changes with `cited: false`, for the person to judge).
 */
export const ZChangeCitationSchema = z.object({
  fileId: z.string(),
  fileName: z.string(),
  chunkId: z.string().nullable().describe("null for a value a code rule read from the file (contextValues)"),
  location: z.string().describe('Where in the file: "p. 1", "lines 3–9", "rows 2–40"'),
  quote: z.string(),
  fields: z.array(z.string()).describe("The changed fields this excerpt was consulted (or cited) for"),
  cited: z.boolean(),
});
export type TChangeCitation = z.infer<typeof ZChangeCitationSchema>;
export const ZChangeCitationsSchema = z.array(ZChangeCitationSchema);

/** One row of the timeline as the read API hands it out (JSON columns parsed, not cast). */
export const ZTimelineEntrySchema = z.object({
  id: z.string(),
  trackerId: z.string(),
  entityId: z.string(),
  runId: z.string(),
  capturedAt: z.date(),
  materiality: ZChangeMaterialitySchema,
  delta: ZChangeDeltaSchema,
  decisions: ZChangeDecisionsSchema,
  definitionVersion: z.number().int(),
  citations: ZChangeCitationsSchema.default([]),
});
export type TTimelineEntry = z.infer<typeof ZTimelineEntrySchema>;

/** The accepted record of an entity; `fields` is the filled record (the baseline the next diff uses). */
export const ZCurrentStateFieldsSchema = z.record(z.string(), z.unknown());

export const ZCurrentStateSchema = z.object({
  entityId: z.string(),
  fields: ZCurrentStateFieldsSchema.describe(
    "The baseline: the accepted record the materiality rules compare the next values against",
  ),
  observed: ZCurrentStateFieldsSchema.describe(
    "What the source said at its last change of content; differs from `fields` where a numeric rule called a move noise and kept the baseline",
  ),
  contentHash: z.string(),
  definitionVersion: z.number().int(),
  lastCheckedAt: z.date(),
  updatedAt: z.date(),
});
export type TCurrentState = z.infer<typeof ZCurrentStateSchema>;

import { z } from "zod";
import { ZChangeDecisionsSchema, ZChangeDeltaSchema, ZChangeMaterialitySchema } from "./timeline";

/**
 * "Lock with history" (docs/replay.md): an entry a later locked version would have recorded for a run already judged,
 * recorded on request beside the original (which stays as the history of the version it was judged under).
 */
export const ZRejudgedEntrySchema = z.object({
  id: z.string(),
  runId: z.string(),
  entityId: z.string(),
  version: z.number().int(),
  capturedAt: z.coerce.date(),
  materiality: ZChangeMaterialitySchema,
  delta: ZChangeDeltaSchema,
  decisions: ZChangeDecisionsSchema,
  createdAt: z.coerce.date(),
});
export type TRejudgedEntry = z.infer<typeof ZRejudgedEntrySchema>;

export const ZRejudgedHistorySchema = z.object({
  /** The newest version history was re-judged under, null when it never was. */
  version: z.number().int().nullable(),
  /** When that re-judging happened. */
  at: z.coerce.date().nullable(),
  entries: z.array(ZRejudgedEntrySchema),
});
export type TRejudgedHistory = z.infer<typeof ZRejudgedHistorySchema>;

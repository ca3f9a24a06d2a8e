import { z } from "zod";
import {
  ZChangeCitationsSchema,
  ZChangeDecisionsSchema,
  ZChangeDeltaSchema,
  ZChangeMaterialitySchema,
} from "@/contracts/timeline";
import type { TDb, TTx } from "../db";
import { AppError } from "../errors";
import type { EntityChange, Prisma } from "../generated/prisma/client";

const ZAppendChangeInputSchema = z.object({
  entityId: z.string().min(1),
  trackerId: z.string().min(1),
  runId: z.string().min(1),
  capturedAt: z.date().refine((d) => !Number.isNaN(d.getTime()), "capturedAt is not a valid date"),
  delta: ZChangeDeltaSchema,
  materiality: ZChangeMaterialitySchema,
  decisions: ZChangeDecisionsSchema,
  /** Context-file excerpts the judge consulted (issue 16); their quotes are copies. */
  citations: ZChangeCitationsSchema.default([]),
  definitionVersion: z.number().int().min(1),
});

export type TAppendChangeInput = z.input<typeof ZAppendChangeInputSchema>;

/**
 * Appends one timeline entry. Append-only and idempotent per (runId, entityId): a redelivered append
 * of the same run inserts nothing (INSERT … ON CONFLICT DO NOTHING, which does not abort the caller's
 * transaction) and returns the row the first delivery wrote.
 */
export async function appendChange(tx: TDb | TTx, input: TAppendChangeInput): Promise<EntityChange> {
  const parsed = ZAppendChangeInputSchema.safeParse(input);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
    throw new AppError("BAD_REQUEST", `Invalid timeline entry: ${detail}`);
  }
  const c = parsed.data;
  await tx.entityChange.createMany({
    data: [
      {
        entityId: c.entityId,
        trackerId: c.trackerId,
        runId: c.runId,
        capturedAt: c.capturedAt,
        delta: toJson(c.delta),
        materiality: c.materiality,
        decisions: toJson(c.decisions),
        citations: JSON.parse(JSON.stringify(c.citations)) as Prisma.InputJsonArray,
        definitionVersion: c.definitionVersion,
      },
    ],
    skipDuplicates: true,
  });
  return tx.entityChange.findUniqueOrThrow({ where: { runId_entityId: { runId: c.runId, entityId: c.entityId } } });
}

/** Validated plain data → Prisma JSON input (drops undefined, which JSON cannot hold). */
function toJson(value: unknown): Prisma.InputJsonObject {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonObject;
}

import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  ZChangeCitationsSchema,
  ZChangeDecisionsSchema,
  ZChangeDeltaSchema,
  ZChangeMaterialitySchema,
} from "@/contracts/timeline";
import type { TDb, TTx } from "../db";
import { guardedBy, type TCte } from "../db-cte";
import { AppError } from "../errors";
import { type EntityChange, Prisma } from "../generated/prisma/client";

const ZAppendChangeInputSchema = z.object({
  entityId: z.string().min(1),
  trackerId: z.string().min(1),
  runId: z.string().min(1),
  capturedAt: z.date().refine((d) => !Number.isNaN(d.getTime()), "capturedAt is not a valid date"),
  delta: ZChangeDeltaSchema,
  materiality: ZChangeMaterialitySchema,
  decisions: ZChangeDecisionsSchema,
  /** Context-file excerpts the judge consulted (docs/context-files.md); their quotes are copies. */
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
  const [change, outbox] = appendChangeSql({ ...input, guard: null });
  await tx.$executeRaw`WITH ${Prisma.raw(`"${change.name}"`)} AS (${change.sql}) ${outbox.sql}`;
  return tx.entityChange.findUniqueOrThrow({
    where: { runId_entityId: { runId: input.runId, entityId: input.entityId } },
  });
}

/**
 * appendChange as two sub-statements of the refresh's one final write (docs/design.md §2: the timeline owns these tables,
 * the refresh composes): the change row and, for a material or notable change, its notifications outbox row
 * (change-outbox.ts) with the tracker's owner — in the same statement, so a change is never recorded without its
 * notice, and only by the delivery that inserted the change (a redelivered append inserts neither). `guard` names
 * the statement's fencing CTE (null: unguarded).
 */
export function appendChangeSql(input: TAppendChangeInput & { guard: string | null }): [TCte, TCte] {
  const parsed = ZAppendChangeInputSchema.safeParse(input);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
    throw new AppError("BAD_REQUEST", `Invalid timeline entry: ${detail}`);
  }
  const c = parsed.data;
  return [
    {
      name: "change",
      sql: Prisma.sql`INSERT INTO "EntityChange"
        ("id", "entityId", "trackerId", "runId", "capturedAt", "delta", "materiality", "decisions", "citations",
         "definitionVersion")
      SELECT ${randomUUID()}, ${c.entityId}, ${c.trackerId}, ${c.runId}, ${c.capturedAt},
        ${JSON.stringify(c.delta)}::jsonb, ${c.materiality}::"ChangeMateriality", ${JSON.stringify(c.decisions)}::jsonb,
        ${JSON.stringify(c.citations)}::jsonb, ${c.definitionVersion}::int
      WHERE ${guardedBy(input.guard)}
      ON CONFLICT ("runId", "entityId") DO NOTHING
      RETURNING "id", "trackerId", "materiality"`,
    },
    {
      name: "change_outbox",
      sql: Prisma.sql`INSERT INTO "ChangeOutbox" ("changeId", "userId")
      SELECT i."id", t."userId" FROM "change" i JOIN "Tracker" t ON t."id" = i."trackerId"
      WHERE i."materiality" <> 'baseline'
      ON CONFLICT DO NOTHING`,
    },
  ];
}

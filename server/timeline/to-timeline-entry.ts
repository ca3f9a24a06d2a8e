import { type TTimelineEntry, ZTimelineEntrySchema } from "@/contracts/timeline";
import { AppError } from "../errors";
import type { EntityChange } from "../generated/prisma/client";

/** Parses a stored EntityChange (JSON columns included) into the public timeline shape. */
export function toTimelineEntry(row: EntityChange): TTimelineEntry {
  const parsed = ZTimelineEntrySchema.safeParse({
    id: row.id,
    trackerId: row.trackerId,
    entityId: row.entityId,
    runId: row.runId,
    capturedAt: row.capturedAt,
    materiality: row.materiality,
    delta: row.delta,
    decisions: row.decisions,
    citations: row.citations,
    definitionVersion: row.definitionVersion,
  });
  if (!parsed.success) {
    throw new AppError("INTERNAL", `Timeline entry ${row.id} is stored in an unexpected shape.`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

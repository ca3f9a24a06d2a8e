import { type TCurrentState, ZCurrentStateSchema } from "@/contracts/timeline";
import type { TDb, TTx } from "../db";
import { AppError } from "../errors";

/** The accepted record of an entity (the diff baseline) and its pre-check hash; null before the first run. */
export async function getCurrentState(db: TDb | TTx, entityId: string): Promise<TCurrentState | null> {
  const row = await db.entityCurrentState.findUnique({ where: { entityId } });
  if (!row) return null;
  const parsed = ZCurrentStateSchema.safeParse({
    entityId: row.entityId,
    fields: row.fields,
    // Rows written before observed values were kept: the baseline is the best guess.
    observed: isEmptyObject(row.observed) ? row.fields : row.observed,
    contentHash: row.contentHash,
    definitionVersion: row.definitionVersion,
    lastCheckedAt: row.lastCheckedAt,
    updatedAt: row.updatedAt,
  });
  if (!parsed.success) {
    throw new AppError("INTERNAL", `The current state of entity ${entityId} is stored in an unexpected shape.`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

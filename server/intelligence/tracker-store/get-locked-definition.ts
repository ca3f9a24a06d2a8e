import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import { parseDefinition, type TTrackerDefinition } from "../definition";

/**
 * The definition in force for a tracker — its highest locked version — parsed; null before the first
 * lock (or for an unknown tracker). Internal (the refresh uses it): no ownership check.
 */
export async function getLockedDefinition(
  db: TDb | TTx,
  trackerId: string,
): Promise<{ version: number; definition: TTrackerDefinition } | null> {
  const row = await db.trackerDefinition.findFirst({
    where: { trackerId, lockedAt: { not: null } },
    orderBy: { version: "desc" },
  });
  if (!row) return null;
  const parsed = parseDefinition(row.definition);
  if (!parsed.ok) {
    throw new AppError(
      "INTERNAL",
      `Locked definition version ${row.version} of tracker ${trackerId} no longer validates: ${parsed.errors.join("; ")}`,
      { details: { errors: parsed.errors } },
    );
  }
  return { version: row.version, definition: parsed.definition };
}

import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import { parseDefinition, type TTrackerDefinition } from "../../intelligence/definition";
import { getTracker } from "../../intelligence/tracker-store";

export type TDefinitionVersion = {
  id: string;
  version: number;
  definition: TTrackerDefinition;
  /** null → the draft being edited. */
  lockedAt: Date | null;
  createdAt: Date;
  /** The locked version the refresh uses (tracker.lockedVersion). */
  inForce: boolean;
};

/** Every version of the user's tracker's definition, newest first (the draft, if any, on top). */
export async function listDefinitionVersions(
  db: TDb | TTx,
  input: { userId: string; trackerId: string },
): Promise<TDefinitionVersion[]> {
  const tracker = await getTracker(db, input);
  const rows = await db.trackerDefinition.findMany({ where: { trackerId: tracker.id }, orderBy: { version: "desc" } });
  return rows.map((row) => {
    const parsed = parseDefinition(row.definition);
    if (!parsed.ok) {
      throw new AppError("INTERNAL", `Definition version ${row.version} is stored in an unexpected shape.`, {
        details: { errors: parsed.errors },
      });
    }
    return {
      id: row.id,
      version: row.version,
      definition: parsed.definition,
      lockedAt: row.lockedAt,
      createdAt: row.createdAt,
      inForce: row.lockedAt !== null && row.version === tracker.lockedVersion,
    };
  });
}

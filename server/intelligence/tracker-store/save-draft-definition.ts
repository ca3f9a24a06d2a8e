import type { TDb } from "../../db";
import { AppError } from "../../errors";
import type { TrackerDefinition } from "../../generated/prisma/client";
import { parseDefinition } from "../definition";
import { getTracker } from "./get-tracker";

/**
 * Validates a definition and stores it as the tracker's single draft, at version lockedVersion + 1
 * (1 before the first lock). Saving again replaces the draft; a locked version is never touched —
 * the update is conditional on lockedAt IS NULL (and a database trigger forbids it anyway).
 */
export async function saveDraftDefinition(
  db: TDb,
  input: { userId: string; trackerId: string; definition: unknown },
): Promise<TrackerDefinition> {
  const result = parseDefinition(input.definition);
  if (!result.ok) {
    throw new AppError("BAD_REQUEST", `The definition is not valid: ${result.errors.join("; ")}`, {
      details: { errors: result.errors },
    });
  }
  const definition = JSON.parse(JSON.stringify(result.definition));

  return db.$transaction(async (tx) => {
    const tracker = await getTracker(tx, input);
    if (tracker.status === "archived") {
      throw new AppError("PRECONDITION_FAILED", "This tracker is archived; its definition can no longer change.");
    }
    const version = (tracker.lockedVersion ?? 0) + 1;
    const where = { trackerId_version: { trackerId: tracker.id, version } };

    const updated = await tx.trackerDefinition.updateMany({
      where: { trackerId: tracker.id, version, lockedAt: null },
      data: { definition },
    });
    if (updated.count === 0) {
      const inserted = await tx.trackerDefinition.createMany({
        data: [{ trackerId: tracker.id, version, definition }],
        skipDuplicates: true,
      });
      if (inserted.count === 0) {
        // The row appeared meanwhile: a concurrent save (harmless, but ours is not the one stored)
        // or a concurrent lock of this very version.
        throw new AppError("CONFLICT", "The definition changed while saving; reload and try again.");
      }
    }
    return tx.trackerDefinition.findUniqueOrThrow({ where });
  });
}

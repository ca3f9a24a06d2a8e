import type { TDb } from "../../db";
import { AppError } from "../../errors";
import type { Tracker, TrackerDefinition } from "../../generated/prisma/client";
import { parseDefinition } from "../definition";
import { getTracker } from "./get-tracker";

/**
 * Locks the tracker's draft definition, in one transaction: the draft row gets lockedAt (a
 * conditional UPDATE … WHERE lockedAt IS NULL, so of two concurrent locks exactly one wins and the
 * other gets CONFLICT), the tracker's lockedVersion moves to it, a draft tracker becomes active (a
 * paused one stays paused) and nextRunAt = now so the first refresh happens promptly.
 */
export async function lockDefinition(
  db: TDb,
  input: { userId: string; trackerId: string },
): Promise<{ tracker: Tracker; definition: TrackerDefinition }> {
  return db.$transaction(async (tx) => {
    const tracker = await getTracker(tx, input);
    if (tracker.status === "archived") {
      throw new AppError("PRECONDITION_FAILED", "This tracker is archived; its definition can no longer be locked.");
    }
    const version = (tracker.lockedVersion ?? 0) + 1;
    const draft = await tx.trackerDefinition.findFirst({
      where: { trackerId: tracker.id, version, lockedAt: null },
    });
    if (!draft) {
      const what = tracker.lockedVersion
        ? `version ${tracker.lockedVersion} is already locked and there is no newer draft`
        : "there is no draft definition yet";
      throw new AppError("PRECONDITION_FAILED", `Nothing to lock: ${what}. Save a draft definition first.`);
    }
    // Saved drafts were validated, but the schema may have tightened since; never lock an invalid one.
    const check = parseDefinition(draft.definition);
    if (!check.ok) {
      throw new AppError("BAD_REQUEST", `The draft definition is not valid: ${check.errors.join("; ")}`, {
        details: { errors: check.errors },
      });
    }

    const now = new Date();
    const conflict = () =>
      new AppError(
        "CONFLICT",
        `Version ${version} was locked by another request at the same time; reload the tracker.`,
      );
    const locked = await tx.trackerDefinition.updateMany({
      where: { id: draft.id, lockedAt: null },
      data: { lockedAt: now },
    });
    if (locked.count !== 1) throw conflict();

    // Compare-and-set on lockedVersion: a concurrent lock of the same version cannot both move it.
    const moved = await tx.tracker.updateMany({
      where: { id: tracker.id, lockedVersion: tracker.lockedVersion },
      data: { lockedVersion: version, nextRunAt: now },
    });
    if (moved.count !== 1) throw conflict();
    await tx.tracker.updateMany({ where: { id: tracker.id, status: "draft" }, data: { status: "active" } });

    return {
      tracker: await tx.tracker.findUniqueOrThrow({ where: { id: tracker.id } }),
      definition: await tx.trackerDefinition.findUniqueOrThrow({ where: { id: draft.id } }),
    };
  });
}

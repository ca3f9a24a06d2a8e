import type { TDb, TTx } from "../../db";
import type { Tracker } from "../../generated/prisma/client";

/** The user's trackers, newest first (archived ones included; filter by status in the caller). */
export async function listTrackers(db: TDb | TTx, input: { userId: string }): Promise<Tracker[]> {
  return db.tracker.findMany({ where: { userId: input.userId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
}

import type { TDb, TTx } from "../../db";
import type { Prisma, Tracker } from "../../generated/prisma/client";

/**
 * Stores a tracker's new capability input (validated by the caller with parseCapabilityInput): the setup's read
 * mode switch (web.scrape `render`) rewrites it whole, with what the new sample decided about `autoRender`.
 */
export async function updateCapabilityInput(
  db: TDb | TTx,
  input: { trackerId: string; capabilityInput: unknown },
): Promise<Tracker> {
  return db.tracker.update({
    where: { id: input.trackerId },
    data: { capabilityInput: JSON.parse(JSON.stringify(input.capabilityInput)) as Prisma.InputJsonValue },
  });
}

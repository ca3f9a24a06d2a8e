import { assertPublicTarget, capabilityConfigFromEnv, type TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { AppError } from "../../errors";
import type { Tracker } from "../../generated/prisma/client";
import { parseDefinition } from "../../intelligence/definition";
import { createTracker, deleteTracker, lockDefinition, saveDraftDefinition } from "../../intelligence/tracker-store";

export type TCreateActiveTrackerInput = {
  userId: string;
  decision: string;
  capability: string;
  capabilityInput: unknown;
  definition: unknown;
  scheduleMinutes?: number;
};

/**
 * An active tracker in one call (the public API's POST /trackers): the definition and the target are checked
 * first, so a bad request leaves nothing behind; then create → save draft → lock (v1, due now). A page whose host
 * is (or resolves to) a private, loopback or link-local address is refused here, not only at the first refresh
 * (docs/design.md §8); `capabilityConfig` carries FETCH_ALLOW_HOSTS and the resolver (tests pass their own).
 */
export async function createActiveTracker(
  db: TDb,
  input: TCreateActiveTrackerInput,
  options: { capabilityConfig?: TCapabilityConfig } = {},
): Promise<Tracker> {
  const parsed = parseDefinition(input.definition);
  if (!parsed.ok) {
    throw new AppError("BAD_REQUEST", `The definition is not valid: ${parsed.errors.join("; ")}`, {
      details: { errors: parsed.errors },
    });
  }
  await assertPublicTarget(
    input.capability,
    input.capabilityInput,
    options.capabilityConfig ?? capabilityConfigFromEnv(),
  );
  const tracker = await createTracker(db, {
    userId: input.userId,
    decision: input.decision,
    capability: input.capability,
    capabilityInput: input.capabilityInput,
    ...(input.scheduleMinutes !== undefined ? { scheduleMinutes: input.scheduleMinutes } : {}),
  });
  try {
    await saveDraftDefinition(db, { userId: input.userId, trackerId: tracker.id, definition: parsed.definition });
    return (await lockDefinition(db, { userId: input.userId, trackerId: tracker.id })).tracker;
  } catch (error) {
    await deleteTracker(db, tracker.id).catch(() => {});
    throw error;
  }
}

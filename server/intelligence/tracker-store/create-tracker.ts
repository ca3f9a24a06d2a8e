import { z } from "zod";
import { parseCapabilityInput } from "../../capabilities";
import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import type { Prisma, Tracker } from "../../generated/prisma/client";

export const DECISION_MIN_CHARS = 3;
export const DECISION_MAX_CHARS = 2000;
export const SCHEDULE_MIN_MINUTES = 1;
export const SCHEDULE_MAX_MINUTES = 30 * 24 * 60;

const ZCreateTrackerInputSchema = z.object({
  userId: z.string().min(1),
  decision: z
    .string()
    .trim()
    .min(DECISION_MIN_CHARS, `Describe the decision in at least ${DECISION_MIN_CHARS} characters.`)
    .max(DECISION_MAX_CHARS, `Keep the decision under ${DECISION_MAX_CHARS} characters.`),
  capability: z.string().min(1, "Choose a capability."),
  capabilityInput: z.unknown(),
  scheduleMinutes: z
    .number()
    .int("The schedule must be a whole number of minutes.")
    .min(SCHEDULE_MIN_MINUTES, `The schedule must be at least ${SCHEDULE_MIN_MINUTES} minute.`)
    .max(SCHEDULE_MAX_MINUTES, "The schedule must be at most 30 days.")
    .default(60),
});

export type TCreateTrackerInput = z.input<typeof ZCreateTrackerInputSchema>;

/**
 * A new tracker in status draft, bound to a capability with validated input. It does nothing until
 * a definition is saved and locked (lockDefinition activates it).
 */
export async function createTracker(db: TDb | TTx, input: TCreateTrackerInput): Promise<Tracker> {
  const parsed = ZCreateTrackerInputSchema.safeParse(input);
  if (!parsed.success) {
    throw new AppError("BAD_REQUEST", parsed.error.issues.map((i) => i.message).join(" "));
  }
  const { userId, decision, capability, scheduleMinutes } = parsed.data;
  const capabilityInput = parseCapabilityInput(capability, parsed.data.capabilityInput);
  try {
    return await db.tracker.create({
      data: {
        userId,
        decision,
        capability,
        capabilityInput: JSON.parse(JSON.stringify(capabilityInput)) as Prisma.InputJsonValue,
        scheduleMinutes,
        status: "draft",
      },
    });
  } catch (error) {
    if ((error as { code?: string }).code === "P2003") {
      throw new AppError("NOT_FOUND", "User not found.", { cause: error });
    }
    throw error;
  }
}

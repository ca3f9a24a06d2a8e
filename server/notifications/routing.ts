import {
  type TNotificationDefaultsInput,
  type TTrackerRoutingInput,
  ZNotificationDefaultsInputSchema,
  ZTrackerRoutingInputSchema,
} from "@/contracts/notifications";
import type { TDb, TTx } from "../db";
import { AppError, invalidInputError } from "../errors";
import type { TRouting } from "./schedule";

export type TNotificationDefaults = TNotificationDefaultsInput;
export type TTrackerRouting = Omit<TTrackerRoutingInput, "trackerId">;

/** The defaults (docs/notifications.md, "Routing"): material → immediately, notable → the daily digest (8:00), failing trackers on, no quiet hours. */
export const DEFAULT_ROUTING: TNotificationDefaults = {
  material: "immediate",
  notable: "digest",
  failing: true,
  quietStartMinute: null,
  quietEndMinute: null,
  digestHour: 8,
};

function asRouting(v: string | null | undefined, fallback: TRouting): TRouting {
  return v === "immediate" || v === "digest" || v === "off" ? v : fallback;
}

export async function getNotificationDefaults(
  db: TDb | TTx,
  input: { userId: string },
): Promise<TNotificationDefaults> {
  const row = await db.notificationSettings.findUnique({ where: { userId: input.userId } });
  if (!row) return DEFAULT_ROUTING;
  return {
    material: asRouting(row.material, DEFAULT_ROUTING.material),
    notable: asRouting(row.notable, DEFAULT_ROUTING.notable),
    failing: row.failing,
    quietStartMinute: row.quietStartMinute,
    quietEndMinute: row.quietEndMinute,
    digestHour: row.digestHour,
  };
}

export async function updateNotificationDefaults(
  db: TDb,
  input: { userId: string; defaults: TNotificationDefaultsInput },
): Promise<TNotificationDefaults> {
  const parsed = ZNotificationDefaultsInputSchema.safeParse(input.defaults);
  if (!parsed.success) throw invalidInputError(parsed.error.issues);
  await db.notificationSettings.upsert({
    where: { userId: input.userId },
    create: { userId: input.userId, ...parsed.data },
    update: parsed.data,
  });
  return parsed.data;
}

async function assertOwnTracker(db: TDb, userId: string, trackerId: string): Promise<void> {
  const tracker = await db.tracker.findFirst({ where: { id: trackerId, userId }, select: { id: true } });
  if (!tracker) throw new AppError("NOT_FOUND", "Tracker not found.");
}

/** A tracker's own routing (null = the person's default) and what that resolves to now. */
export async function getTrackerRouting(
  db: TDb,
  input: { userId: string; trackerId: string },
): Promise<{ own: TTrackerRouting; effective: Pick<TNotificationDefaults, "material" | "notable" | "failing"> }> {
  await assertOwnTracker(db, input.userId, input.trackerId);
  const [row, defaults] = await Promise.all([
    db.trackerNotificationRoute.findUnique({ where: { trackerId: input.trackerId } }),
    getNotificationDefaults(db, input),
  ]);
  const own: TTrackerRouting = {
    material: row?.material ? asRouting(row.material, defaults.material) : null,
    notable: row?.notable ? asRouting(row.notable, defaults.notable) : null,
    failing: row?.failing ?? null,
  };
  return { own, effective: resolveRouting(defaults, own) };
}

export async function updateTrackerRouting(db: TDb, input: { userId: string; routing: TTrackerRoutingInput }) {
  const parsed = ZTrackerRoutingInputSchema.safeParse(input.routing);
  if (!parsed.success) throw invalidInputError(parsed.error.issues);
  const { trackerId, ...own } = parsed.data;
  await assertOwnTracker(db, input.userId, trackerId);
  await db.trackerNotificationRoute.upsert({
    where: { trackerId },
    create: { trackerId, userId: input.userId, ...own },
    update: own,
  });
  return getTrackerRouting(db, { userId: input.userId, trackerId });
}

export function resolveRouting(
  defaults: Pick<TNotificationDefaults, "material" | "notable" | "failing">,
  own: { material?: string | null; notable?: string | null; failing?: boolean | null } | null | undefined,
): Pick<TNotificationDefaults, "material" | "notable" | "failing"> {
  return {
    material: asRouting(own?.material, defaults.material),
    notable: asRouting(own?.notable, defaults.notable),
    failing: own?.failing ?? defaults.failing,
  };
}

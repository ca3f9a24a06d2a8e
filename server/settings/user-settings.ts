import { z } from "zod";
import type { TDb, TTx } from "@/server/db";
import { publish } from "@/server/events";

export const ZFeedSettingsInputSchema = z.object({
  locationName: z.string().trim().max(200).nullable(),
  latitude: z.number().min(-90).max(90).nullable(),
  longitude: z.number().min(-180).max(180).nullable(),
  timezone: z.string().trim().max(64).nullable(),
  calendarUrl: z
    .string()
    .trim()
    .max(2000)
    .nullable()
    .refine((v) => v === null || v === "" || /^https?:\/\//i.test(v), {
      message: "Calendar URL must start with http:// or https://",
    }),
  memory: z.string().max(4000),
});
export type TFeedSettingsInput = z.infer<typeof ZFeedSettingsInputSchema>;

export type TUserSettings = TFeedSettingsInput & { lastActiveAt: Date | null };

const EMPTY: TUserSettings = {
  locationName: null,
  latitude: null,
  longitude: null,
  timezone: null,
  calendarUrl: null,
  memory: "",
  lastActiveAt: null,
};

export async function getUserSettings(db: TDb | TTx, userId: string): Promise<TUserSettings> {
  const row = await db.userSettings.findUnique({ where: { userId } });
  if (!row) return EMPTY;
  return {
    locationName: row.locationName,
    latitude: row.latitude,
    longitude: row.longitude,
    timezone: row.timezone,
    calendarUrl: row.calendarUrl,
    memory: row.memory,
    lastActiveAt: row.lastActiveAt,
  };
}

export async function updateUserSettings(
  db: TDb | TTx,
  userId: string,
  input: TFeedSettingsInput,
): Promise<TUserSettings> {
  // A place without both coordinates cannot drive the weather; keep the pair consistent.
  const hasCoords = input.latitude !== null && input.longitude !== null;
  const data = {
    locationName: input.locationName || null,
    latitude: hasCoords ? input.latitude : null,
    longitude: hasCoords ? input.longitude : null,
    timezone: input.timezone || null,
    calendarUrl: input.calendarUrl || null,
    memory: input.memory,
  };
  await db.userSettings.upsert({ where: { userId }, create: { userId, ...data }, update: data });
  // Open feed pages reload with the new location, calendar and notes.
  await publish(db, "feed.changed", { userId, reason: "settings" });
  return getUserSettings(db, userId);
}

/** The feed page was opened; enhancement runs only for users active in the last 2 hours. */
export async function touchLastActive(db: TDb | TTx, userId: string, now: Date): Promise<void> {
  await db.userSettings.upsert({
    where: { userId },
    create: { userId, lastActiveAt: now },
    update: { lastActiveAt: now },
  });
}

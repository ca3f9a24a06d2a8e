import { type TFeedSettings, type TFeedSettingsInput, ZFeedSettingsInputSchema } from "@/contracts/settings";
import type { TDb, TTx } from "@/server/db";
import { publish } from "@/server/events";

export { type TFeedSettingsInput, ZFeedSettingsInputSchema };

export type TUserSettings = TFeedSettings;

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
  return (await getUserSettingsAndSeen(db, userId)).settings;
}

/**
 * The settings and the feed's "new since" threshold (feed-seen.ts) in one read: a feed load reads the person's row
 * once and passes what it found down (the enhancement gets `lastActiveAt` from here too).
 */
export async function getUserSettingsAndSeen(
  db: TDb | TTx,
  userId: string,
): Promise<{ settings: TUserSettings; feedSeenBefore: Date | null }> {
  const row = await db.userSettings.findUnique({ where: { userId } });
  if (!row) return { settings: EMPTY, feedSeenBefore: null };
  return {
    settings: {
      locationName: row.locationName,
      latitude: row.latitude,
      longitude: row.longitude,
      timezone: row.timezone,
      calendarUrl: row.calendarUrl,
      memory: row.memory,
      lastActiveAt: row.lastActiveAt,
    },
    feedSeenBefore: row.feedSeenBefore,
  };
}

export async function updateUserSettings(
  db: TDb | TTx,
  userId: string,
  input: TFeedSettingsInput,
): Promise<TUserSettings> {
  // The contract refuses one coordinate without the other; checked again here for callers that skip it.
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

/**
 * Sets when the person was last active to exactly `now` (enhancement runs only for users active in the last 2
 * hours). A feed view records it together with its seen marker (feed-seen.ts); tests use this to backdate it.
 */
export async function touchLastActive(db: TDb | TTx, userId: string, now: Date): Promise<void> {
  await db.userSettings.upsert({
    where: { userId },
    create: { userId, lastActiveAt: now },
    update: { lastActiveAt: now },
  });
}

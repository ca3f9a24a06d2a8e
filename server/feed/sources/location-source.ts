import type { TUserSettings } from "../../settings/user-settings";
import type { TFeedSource } from "../feed-engine";

export type TLocationContext = { name: string; latitude: number; longitude: number; timezone: string | null } | null;

/** The user's saved place; no items of its own, only context for weather (and later others). */
export function locationSource(settings: TUserSettings): TFeedSource {
  return {
    id: "location",
    async fetchContext(): Promise<TLocationContext> {
      if (settings.latitude === null || settings.longitude === null) return null;
      return {
        name: settings.locationName || `${settings.latitude.toFixed(2)}, ${settings.longitude.toFixed(2)}`,
        latitude: settings.latitude,
        longitude: settings.longitude,
        timezone: settings.timezone,
      };
    },
    async fetchItems() {
      return [];
    },
  };
}

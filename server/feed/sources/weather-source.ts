import { z } from "zod";
import { buildSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import type { TFeedSource } from "../feed-engine";
import type { TLocationContext } from "./location-source";
import { weatherSetupItem } from "./setup-items";

const ZOpenMeteoSchema = z.object({
  current: z.object({ time: z.string(), temperature_2m: z.number(), weather_code: z.number() }),
  current_units: z.object({ temperature_2m: z.string() }).partial().optional(),
  hourly: z.object({
    time: z.array(z.string()),
    temperature_2m: z.array(z.number().nullable()),
    precipitation_probability: z.array(z.number().nullable()).optional(),
  }),
});

// WMO weather interpretation codes (Open-Meteo docs), grouped.
export function describeWeatherCode(code: number): string {
  if (code === 0) return "clear";
  if (code <= 2) return "partly cloudy";
  if (code === 3) return "overcast";
  if (code <= 48) return "fog";
  if (code <= 57) return "drizzle";
  if (code <= 67) return "rain";
  if (code <= 77) return "snow";
  if (code <= 82) return "rain showers";
  if (code <= 86) return "snow showers";
  return "thunderstorm";
}

const HOURS = 8;

export type TWeatherSourceOptions = {
  baseUrl: string;
  timeoutMs: number;
  /**
   * The person's time zone (Settings, else the browser's): the hours are asked for in it, so they read like the
   * agenda's times (docs/feed.md, "Time zone"). Null: the place's own zone (Open-Meteo's "auto").
   */
  timeZone?: string | null;
};

/** Current conditions + next hours from Open-Meteo for the location source's place. */
export function weatherSource(opts: TWeatherSourceOptions): TFeedSource {
  return {
    id: "weather",
    dependencies: ["location"],
    async fetchItems({ contexts, now }) {
      const place = contexts.location as TLocationContext;
      if (!place) return [weatherSetupItem(now)];
      const url = new URL("/v1/forecast", opts.baseUrl);
      url.searchParams.set("latitude", String(place.latitude));
      url.searchParams.set("longitude", String(place.longitude));
      url.searchParams.set("current", "temperature_2m,weather_code");
      url.searchParams.set("hourly", "temperature_2m,precipitation_probability");
      url.searchParams.set("forecast_days", "2");
      url.searchParams.set("timezone", opts.timeZone || place.timezone || "auto");
      let body: unknown;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(opts.timeoutMs) });
        if (!res.ok) throw new Error(`Weather service answered HTTP ${res.status}.`);
        body = await res.json();
      } catch (error) {
        if (error instanceof Error && error.message.startsWith("Weather service")) throw error;
        throw new Error("Could not reach the weather service.");
      }
      const parsed = ZOpenMeteoSchema.safeParse(body);
      if (!parsed.success) throw new Error("The weather service sent an unexpected answer.");
      const w = parsed.data;
      const startIdx = Math.max(
        0,
        w.hourly.time.findIndex((t) => t >= w.current.time.slice(0, 13)),
      );
      const hours = w.hourly.time.slice(startIdx, startIdx + HOURS).map((time, i) => ({
        time: time.slice(11, 16),
        temperature: w.hourly.temperature_2m[startIdx + i] ?? 0,
        precipitation: w.hourly.precipitation_probability?.[startIdx + i] ?? null,
      }));
      const condition = describeWeatherCode(w.current.weather_code);
      const unit = w.current_units?.temperature_2m ?? "°C";
      const item: TFeedItem = {
        id: `weather:${place.latitude.toFixed(2)},${place.longitude.toFixed(2)}`,
        sourceId: "weather",
        type: "weather-current",
        timestamp: now,
        data: { place: place.name, temperature: w.current.temperature_2m, condition, unit, hours },
        signals: { urgency: 0.3, timeRelevance: "ambient" },
        ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, [
          {
            key: "header",
            type: "WeatherHeader",
            props: { place: place.name, temperature: w.current.temperature_2m, condition, unit },
          },
          { key: "insight", type: "Slot", props: { name: "insight" } },
          { key: "hours", type: "HourlyStrip", props: { hours } },
          { key: "cross", type: "Slot", props: { name: "cross-source" } },
        ]),
        slots: {
          insight: {
            description: "A short insight about the current weather and how it affects the user's day",
            content: null,
          },
          "cross-source": {
            description: "A connection between the weather and the user's calendar events or tracked decisions",
            content: null,
          },
        },
      };
      return [item];
    },
  };
}

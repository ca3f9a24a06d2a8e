import { z } from "zod";
import { zText } from "./common";

/**
 * The input of a Google Maps search watched as a set of places (identity = place id). The bounds are Google's: a
 * Places API (New) search circle is at most 50 km, and a text search answers at most 60 places (3 pages of 20).
 * Client-safe: the person's words are parsed on the server (server/capabilities/maps-search/parse-search-target.ts)
 * with these same bounds.
 */
export const MAPS_SEARCH_LIMITS = {
  minRadiusMeters: 1,
  maxRadiusMeters: 50_000,
  maxResults: 60,
  defaultMaxResults: 20,
} as const;

export const ZLatLngSchema = z
  .object({
    lat: z
      .number()
      .min(-90, "Latitude must be between -90 and 90.")
      .max(90, "Latitude must be between -90 and 90.")
      .describe("Latitude in decimal degrees, -90 to 90"),
    lng: z
      .number()
      .min(-180, "Longitude must be between -180 and 180.")
      .max(180, "Longitude must be between -180 and 180.")
      .describe("Longitude in decimal degrees, -180 to 180"),
  })
  .describe("A point on the map, e.g. { lat: 51.52, lng: -0.08 }");
export type TLatLng = z.infer<typeof ZLatLngSchema>;

export const ZMapsSearchInputSchema = z
  .object({
    query: zText({ min: 1, max: 200, label: "The search" })
      .trim()
      .min(1, "Say what to look for, e.g. coffee or vegan restaurants in Shoreditch.")
      .describe(
        'What to look for, in words Google Maps understands, e.g. "coffee" or "vegan restaurants in Shoreditch"',
      ),
    center: ZLatLngSchema.optional().describe(
      "Search around this point; without it Google reads the place from the words",
    ),
    radiusMeters: z
      .number()
      .min(MAPS_SEARCH_LIMITS.minRadiusMeters, "The radius must be at least 1 m.")
      .max(MAPS_SEARCH_LIMITS.maxRadiusMeters, "The radius must be at most 50 km: Google Maps searches no wider.")
      .optional()
      .describe("Only places within this many metres of center (1 to 50,000); needs center"),
    maxResults: z
      .number()
      .int("The number of places must be a whole number.")
      .min(1, "Ask for at least 1 place.")
      .max(MAPS_SEARCH_LIMITS.maxResults, "Google Maps answers at most 60 places for one search.")
      .default(MAPS_SEARCH_LIMITS.defaultMaxResults)
      .describe("How many places to keep, in Google's order (1 to 60, default 20)"),
  })
  .refine((v) => v.radiusMeters === undefined || v.center !== undefined, {
    message: "A radius needs a center: give the point to search around.",
    path: ["radiusMeters"],
  })
  .describe("A Google Maps search watched as a set of places");
export type TMapsSearchInput = z.infer<typeof ZMapsSearchInputSchema>;

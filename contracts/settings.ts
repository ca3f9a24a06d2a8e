import { z } from "zod";
import { zText } from "./common";

/**
 * A person's own settings (Settings page) and the place search that fills their location. Client-safe: the
 * messages here are what a form shows next to each field (server/errors.ts `fieldErrors`), so they name the field.
 */

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const coordinate = (label: string, limit: number) =>
  z
    .number({ error: `${label} must be a number.` })
    .min(-limit, `${label} must be between -${limit} and ${limit}.`)
    .max(limit, `${label} must be between -${limit} and ${limit}.`)
    .nullable();

export const ZFeedSettingsInputSchema = z
  .object({
    /** What the place is called on the weather card ("Lisbon, Portugal"), usually from the place search. */
    locationName: z.string().trim().max(200, "Place name must be at most 200 characters.").nullable(),
    latitude: coordinate("Latitude", 90),
    longitude: coordinate("Longitude", 180),
    timezone: z
      .string()
      .trim()
      .max(64, "Time zone must be at most 64 characters.")
      .nullable()
      .refine((v) => v === null || v === "" || isTimeZone(v), {
        message: "Time zone must be an IANA name such as Europe/London.",
      }),
    calendarUrl: z
      .string()
      .trim()
      .max(2000, "Calendar URL must be at most 2000 characters.")
      .nullable()
      .refine((v) => v === null || v === "" || /^https?:\/\//i.test(v), {
        message: "Calendar URL must start with http:// or https://",
      }),
    memory: z.string().max(4000, "Notes must be at most 4000 characters."),
  })
  // The weather needs both coordinates: one without the other is refused (naming the missing one) rather than
  // dropped, so nothing the person typed is lost silently.
  .superRefine((v, ctx) => {
    if (v.latitude !== null && v.longitude === null) {
      ctx.addIssue({ code: "custom", path: ["longitude"], message: "Longitude is needed with a latitude." });
    }
    if (v.longitude !== null && v.latitude === null) {
      ctx.addIssue({ code: "custom", path: ["latitude"], message: "Latitude is needed with a longitude." });
    }
  });
export type TFeedSettingsInput = z.infer<typeof ZFeedSettingsInputSchema>;

export const ZFeedSettingsSchema = z.object({
  locationName: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  timezone: z.string().nullable(),
  calendarUrl: z.string().nullable(),
  memory: z.string(),
  lastActiveAt: z.date().nullable(),
});
export type TFeedSettings = z.infer<typeof ZFeedSettingsSchema>;

/** The fewest characters a place search needs (Open-Meteo's geocoder answers nothing useful for one). */
export const PLACE_SEARCH_MIN_CHARS = 2;

export const ZPlaceSearchInputSchema = z.object({
  query: zText({ max: 100, label: "The place name" })
    .transform((s) => s.trim())
    .refine((s) => s.length >= PLACE_SEARCH_MIN_CHARS, {
      message: `Type at least ${PLACE_SEARCH_MIN_CHARS} letters of the place name.`,
    }),
});
export type TPlaceSearchInput = z.input<typeof ZPlaceSearchInputSchema>;

/** One geocoding result: enough to fill the location and tell places of the same name apart. */
export const ZPlaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** "Lisbon, Portugal" / "Springfield, Illinois, United States": what the list shows and the settings keep. */
  label: z.string(),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  /** IANA zone of the place, when the geocoder knows it. */
  timezone: z.string().nullable(),
  country: z.string().nullable(),
  region: z.string().nullable(),
});
export type TPlace = z.infer<typeof ZPlaceSchema>;

export const ZPlaceSearchResultSchema = z.object({
  query: z.string(),
  places: z.array(ZPlaceSchema),
});
export type TPlaceSearchResult = z.infer<typeof ZPlaceSearchResultSchema>;

import { z } from "zod";
import { type TPlace, type TPlaceSearchResult, ZPlaceSearchInputSchema } from "@/contracts/settings";
import { getEnv } from "@/server/env";
import { AppError, invalidInputError } from "@/server/errors";

/**
 * Place search for the feed's location (Settings): a name → up to five places with coordinates and time zone,
 * from Open-Meteo's geocoding API (free, no key; https://open-meteo.com/en/docs/geocoding-api). Its origin is
 * GEOCODING_BASE_URL, a local fixture in tests, as the forecast's is OPEN_METEO_BASE_URL.
 */

const RESULT_COUNT = 5;
/** The geocoder answers a few kB; anything much larger is not its answer. */
const MAX_BODY_CHARS = 256_000;

const ZGeocodingResultSchema = z.object({
  id: z.union([z.number(), z.string()]),
  name: z.string().min(1),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  timezone: z.string().optional(),
  country: z.string().optional(),
  admin1: z.string().optional(),
  admin2: z.string().optional(),
});
// No `results` key at all is how the geocoder says "nothing found".
const ZGeocodingResponseSchema = z.object({ results: z.array(z.unknown()).optional() });

export type TSearchPlacesOptions = { baseUrl: string; timeoutMs: number };

export const UNREACHABLE_MESSAGE =
  "Place search is unavailable: the geocoding service could not be reached. Try again, or enter the coordinates by hand.";

function labelOf(r: z.infer<typeof ZGeocodingResultSchema>): string {
  const parts: string[] = [];
  for (const part of [r.name, r.admin1, r.country]) {
    if (part && !parts.includes(part)) parts.push(part);
  }
  return parts.join(", ");
}

function toPlaces(results: readonly unknown[]): TPlace[] {
  const places: TPlace[] = [];
  for (const raw of results) {
    // A malformed entry is skipped, not the whole answer.
    const parsed = ZGeocodingResultSchema.safeParse(raw);
    if (!parsed.success) continue;
    const r = parsed.data;
    let label = labelOf(r);
    // Same name, region and country (two Springfields in one state): the district, else the coordinates, tell them apart.
    if (places.some((p) => p.label === label)) {
      label =
        r.admin2 && r.admin2 !== r.name
          ? `${label} (${r.admin2})`
          : `${label} (${r.latitude.toFixed(2)}, ${r.longitude.toFixed(2)})`;
    }
    places.push({
      id: String(r.id),
      name: r.name,
      label,
      latitude: r.latitude,
      longitude: r.longitude,
      timezone: r.timezone && r.timezone.trim() !== "" ? r.timezone : null,
      country: r.country ?? null,
      region: r.admin1 ?? null,
    });
    if (places.length === RESULT_COUNT) break;
  }
  return places;
}

/**
 * Up to five places named like `query`, best match first. An unreachable, slow or confused geocoder is an
 * UPSTREAM_FAILED / UPSTREAM_TIMEOUT AppError whose message says what to do instead; nothing is stored.
 */
export async function searchPlaces(
  input: { query: string },
  options: TSearchPlacesOptions = { baseUrl: getEnv().GEOCODING_BASE_URL, timeoutMs: getEnv().FETCH_TIMEOUT_MS },
): Promise<TPlaceSearchResult> {
  const checked = ZPlaceSearchInputSchema.safeParse(input);
  if (!checked.success) throw invalidInputError(checked.error.issues);
  const { query } = checked.data;
  const url = new URL("/v1/search", options.baseUrl);
  url.searchParams.set("name", query);
  url.searchParams.set("count", String(RESULT_COUNT));
  url.searchParams.set("language", "en");
  url.searchParams.set("format", "json");

  let text: string;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs), redirect: "error" });
    text = await res.text();
    if (!res.ok) {
      throw new AppError(
        "UPSTREAM_FAILED",
        `Place search is unavailable: the geocoding service answered HTTP ${res.status}. Try again later, or enter the coordinates by hand.`,
        { details: { upstreamStatus: res.status } },
      );
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
      throw new AppError(
        "UPSTREAM_TIMEOUT",
        "Place search is unavailable: the geocoding service did not answer in time. Try again, or enter the coordinates by hand.",
        { cause: error },
      );
    }
    throw new AppError("UPSTREAM_FAILED", UNREACHABLE_MESSAGE, { cause: error });
  }

  let body: unknown;
  try {
    if (text.length > MAX_BODY_CHARS) throw new Error("oversized answer");
    body = JSON.parse(text);
  } catch (error) {
    throw new AppError(
      "UPSTREAM_FAILED",
      "Place search is unavailable: the geocoding service sent an unreadable answer.",
      {
        cause: error,
      },
    );
  }
  const parsed = ZGeocodingResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new AppError(
      "UPSTREAM_FAILED",
      "Place search is unavailable: the geocoding service sent an unexpected answer.",
    );
  }
  return { query, places: toPlaces(parsed.data.results ?? []) };
}

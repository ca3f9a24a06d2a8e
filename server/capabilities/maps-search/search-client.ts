import { z } from "zod";
import { type TLatLng, type TMapsSearchInput, ZLatLngSchema } from "../../../contracts/maps-search";
import { CapabilityFailure } from "../envelope";
import { normalizePlace, PLACE_FIELD_MASK, ZGooglePlaceSchema, ZPlaceSchema } from "../maps-place/normalize-place";
import { requestPlacesJson, type TPlacesRequest } from "../maps-place/places-client";
import { boundingRectangle, haversineMeters } from "./geo";

/**
 * POST {baseUrl}/v1/places:searchText — Places API (New) Text Search, read as a set of places keyed by place id
 * (docs/capabilities.md: maps.place's identity is the place id; a search is many of them). Each place is
 * normalised exactly as maps.place normalises it, so a place reads the same whether found or read by id.
 */

/** maps.place's fields under `places.`, plus where each place is (for the distance) and the page token. */
export const SEARCH_FIELD_MASK = [
  ...PLACE_FIELD_MASK.split(",").map((f) => `places.${f}`),
  "places.location",
  "nextPageToken",
].join(",");

/** Google answers at most 20 places a page and 60 for one search, so three pages is the most there can be. */
const PAGE_SIZE = 20;
const MAX_PAGES = 3;

/**
 * A rectangle restriction a little larger than the circle: Google's geometry is the ellipsoid and ours a sphere, so
 * a place just inside the circle is not lost at the box's edge; the exact circle is applied in code.
 */
const BOX_MARGIN = 1.01;

const ZSearchTextResponseSchema = z.looseObject({
  places: z
    .array(
      ZGooglePlaceSchema.extend({
        location: z.looseObject({ latitude: z.number(), longitude: z.number() }).optional(),
      }),
    )
    .optional(),
  nextPageToken: z.string().optional(),
});

export const ZFoundPlaceSchema = z.object({
  place: ZPlaceSchema,
  location: ZLatLngSchema.nullable(),
  /** Whole metres from the search's center; null without a center. */
  distanceMeters: z.number().int().nullable(),
});
export type TFoundPlace = z.infer<typeof ZFoundPlaceSchema>;

export const ZPlacesSearchResultSchema = z.object({
  /** Google's order (relevance), each place id once. */
  places: z.array(ZFoundPlaceSchema),
  /**
   * False when Google had more than was kept (maxResults, or its own 60-place cap): a place missing from an
   * incomplete set may only have been outranked, not closed or gone.
   */
  complete: z.boolean(),
});
export type TPlacesSearchResult = z.infer<typeof ZPlacesSearchResultSchema>;

type TArea =
  | { locationRestriction: { rectangle: { low: TGoogleLatLng; high: TGoogleLatLng } } }
  | { locationBias: { circle: { center: TGoogleLatLng; radius: number } } }
  | Record<string, never>;
type TGoogleLatLng = { latitude: number; longitude: number };
const google = (p: TLatLng): TGoogleLatLng => ({ latitude: p.lat, longitude: p.lng });

/**
 * Text Search restricts to a rectangle only: `locationRestriction` takes `rectangle` (a viewport), while a `circle`
 * is accepted by `locationBias` alone, which ranks nearby places first but still returns others. So a radius is
 * sent as the circle's bounding box and the corners are cut off here by exact distance. A circle around a pole has
 * no such box; then the circle goes as a bias and the distance filter does all the restricting.
 */
function searchArea(center: TLatLng | undefined, radiusMeters: number | undefined): TArea {
  if (!center) return {};
  if (radiusMeters === undefined) return { locationBias: { circle: { center: google(center), radius: 0 } } };
  const box = boundingRectangle(center, radiusMeters * BOX_MARGIN);
  if (!box) return { locationBias: { circle: { center: google(center), radius: radiusMeters } } };
  return { locationRestriction: { rectangle: { low: google(box.low), high: google(box.high) } } };
}

export async function searchPlaces(input: TMapsSearchInput, req: TPlacesRequest): Promise<TPlacesSearchResult> {
  const url = new URL("/v1/places:searchText", req.baseUrl);
  const { center, radiusMeters, maxResults } = input;
  const area = searchArea(center, radiusMeters);
  const found: TFoundPlace[] = [];
  const seen = new Set<string>();
  let pageToken: string | undefined;
  let pages = 0;
  let cut = false;
  do {
    // Only pageToken and pageSize may change between pages; everything else must repeat the first request.
    const body = {
      textQuery: input.query,
      pageSize: Math.min(PAGE_SIZE, maxResults - found.length),
      ...(pageToken ? { pageToken } : {}),
      ...(req.languageCode ? { languageCode: req.languageCode } : {}),
      ...area,
    };
    const json = await requestPlacesJson(url, { fieldMask: SEARCH_FIELD_MASK, body }, req, { search: input.query });
    pages++;
    const page = ZSearchTextResponseSchema.safeParse(json);
    if (!page.success) {
      throw new CapabilityFailure(
        "INVALID_RESPONSE",
        "Google Maps sent search results in an unexpected shape. It will be retried.",
        true,
      );
    }
    const raws = page.data.places ?? [];
    for (const [i, raw] of raws.entries()) {
      // A result without an id cannot be keyed; one seen on an earlier page (results shift while paging) is kept once.
      if (!raw.id || seen.has(raw.id)) continue;
      seen.add(raw.id);
      const location = raw.location ? { lat: raw.location.latitude, lng: raw.location.longitude } : null;
      const distance = center && location ? haversineMeters(center, location) : null;
      // Under a radius a place must be provably inside it; one without a location cannot be.
      if (radiusMeters !== undefined && (distance === null || distance > radiusMeters)) continue;
      found.push({
        place: normalizePlace(raw, raw.id),
        location,
        distanceMeters: distance === null ? null : Math.round(distance),
      });
      if (found.length === maxResults) {
        cut = i < raws.length - 1;
        break;
      }
    }
    pageToken = page.data.nextPageToken || undefined;
  } while (found.length < maxResults && pageToken && pages < MAX_PAGES);
  return { places: found, complete: !cut && !pageToken };
}

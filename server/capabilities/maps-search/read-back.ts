import type { TLatLng } from "../../../contracts/maps-search";
import { sortByKey } from "../feed-items/read-back";
import type { TReadBack, TSetMember } from "../types";
import type { TFoundPlace } from "./search-client";

/** What a search leaves (maps.search's output), as stored: any part may be missing (a sample, an old capture). */
type TSearchResultLike = {
  query?: string;
  center?: TLatLng | null;
  radiusMeters?: number | null;
  places?: TFoundPlace[];
};

/**
 * A place search read back as a set (docs/sets.md): one member per place, keyed by its place id, its values the place
 * as maps.place reads it plus `distanceMeters`; the document holds the search and the members sorted by key, so its
 * hash is the whole set's whatever Google's order (relevance shifts between calls). `fetchedAt` and `complete` are
 * not in it: they say nothing about the places.
 */
export function readSearchResult(
  input: { query?: string; center?: TLatLng; radiusMeters?: number } | undefined,
  results: TSearchResultLike | undefined,
): TReadBack {
  const r = results ?? {};
  const found = Array.isArray(r.places) ? r.places : [];
  const items = found.map(placeMember);
  const search = {
    query: r.query ?? input?.query ?? "",
    center: r.center ?? input?.center ?? null,
    radiusMeters: r.radiusMeters ?? input?.radiusMeters ?? null,
  };
  const document = { ...search, places: sortByKey(items) };
  return {
    document,
    raw: { json: document },
    source: `Google Maps search "${search.query}"`,
    ids: {},
    items,
  };
}

/** One found place as a set member: the normalised place (maps.place's fields) and its distance from the center. */
export function placeMember(found: TFoundPlace): TSetMember {
  return { key: found.place.placeId, values: { ...found.place, distanceMeters: found.distanceMeters } };
}

import { z } from "zod";
import { formatDistance } from "../../../contracts/definition/describe-set-rule";
import { type TMapsSearchInput, ZLatLngSchema } from "../../../contracts/maps-search";
import { hostOfUrl } from "../../lib/host-gate";
import { completed, failedFrom } from "../envelope";
import { mapsNotConfigured, type TPlacesRequest } from "../maps-place/places-client";
import type { TCapability, TCapabilityContext, TCapabilityEnvelope, TSetDraft } from "../types";
import { recordUsage } from "../usage";
import { findSearchPhrase } from "./find-search-phrase";
import { readSearchResult } from "./read-back";
import { searchPlaces, ZPlacesSearchResultSchema } from "./search-client";
import { ZMapsSearchCapabilityInputSchema } from "./search-input";

/**
 * maps.search — a Google Maps text search ("coffee near 51.52,-0.08 within 2 km") watched as a set of places
 * (docs/sets.md): each place keyed by its place id, read exactly as maps.place reads it, plus its distance from the
 * search's center. Same key, base URL and error wording as maps.place (maps-place/places-client.ts).
 */

export const MAPS_SEARCH = "maps.search";

export type TMapsSearchCapabilityInput = TMapsSearchInput;

export const ZMapsSearchOutputSchema = ZPlacesSearchResultSchema.extend({
  query: z.string(),
  center: ZLatLngSchema.nullable(),
  radiusMeters: z.number().nullable(),
  fetchedAt: z.string(),
}).describe("The search as sent and the places Google found, in its order, each once");
export type TMapsSearchOutput = z.infer<typeof ZMapsSearchOutputSchema>;

async function readSearch(
  input: TMapsSearchInput,
  ctx: TCapabilityContext,
): Promise<TCapabilityEnvelope<TMapsSearchOutput>> {
  const { apiKey, baseUrl, timeoutMs } = ctx.config.maps;
  if (!apiKey) return mapsNotConfigured();
  const startedAt = new Date();
  const stats: TPlacesRequest["stats"] = { requests: 0, bytes: 0 };
  let envelope: TCapabilityEnvelope<TMapsSearchOutput>;
  try {
    const found = await searchPlaces(input, { apiKey, baseUrl, timeoutMs, signal: ctx.signal, stats });
    envelope = completed({
      query: input.query,
      center: input.center ?? null,
      radiusMeters: input.radiusMeters ?? null,
      ...found,
      fetchedAt: startedAt.toISOString(),
    });
  } catch (err) {
    envelope = failedFrom(err, `the Google Maps search "${input.query}"`);
  }
  await recordUsage(ctx, MAPS_SEARCH, input, envelope, stats, startedAt);
  return envelope;
}

/**
 * "coffee" within 2 km of 51.52,-0.08. The person's words before they are parsed (setup's label while binding) have
 * no center and read as they were written.
 */
function describeSearch(input: Partial<TMapsSearchInput>): string {
  const what = `Google Maps search "${input.query ?? ""}"`;
  if (!input.center) return what;
  const at = `${input.center.lat},${input.center.lng}`;
  return input.radiusMeters === undefined
    ? `${what} near ${at}`
    : `${what} within ${formatDistance(input.radiusMeters)} of ${at}`;
}

/**
 * A search drafted in rules mode (docs/sets.md): a new place and a gone one are material by the set's rules; so is a
 * member's business status moving (closed for good or for now), a rating move of 0.2 or more, and a review count
 * that grows by a quarter in one step. A renamed or moved place is for the judge (notable while AI is off). The
 * distance is drafted so a rule such as "a new place within 1 km" can read it; alone it is noise (it moves only
 * with the address).
 */
const SEARCH_SET_DRAFT: TSetDraft = {
  member: { one: "place", many: "places" },
  fields: [
    {
      value: "name",
      type: "string",
      description: "The place's name on Google Maps",
      rule: {
        kind: "ask_agent",
        guidance: "A new name (a rebrand, a new owner) is material; a spelling or punctuation fix is noise.",
      },
    },
    {
      value: "rating",
      type: "number",
      description: "Google rating (1–5)",
      rule: { kind: "numeric", absolute: 0.2 },
    },
    {
      value: "reviewCount",
      type: "integer",
      description: "Number of reviews",
      rule: { kind: "numeric", relative: 0.25 },
    },
    {
      value: "businessStatus",
      type: "string",
      description: "operational, closed_temporarily or closed_permanently",
      rule: { kind: "any_change" },
    },
    {
      value: "priceLevel",
      type: "string",
      description: "Google's price level (inexpensive … very_expensive)",
      rule: { kind: "any_change" },
    },
    {
      value: "address",
      type: "string",
      description: "The place's address",
      rule: {
        kind: "ask_agent",
        guidance: "A move to another address is material; the same address written differently is noise.",
      },
    },
    {
      value: "distanceMeters",
      type: "integer",
      description: "Metres from the search's center",
      rule: { kind: "ignore" },
    },
  ],
};

export const mapsSearch: TCapability<TMapsSearchInput, TMapsSearchOutput> = {
  name: MAPS_SEARCH,
  description:
    "Searches Google Maps (Places API New text search), optionally within a radius of a point, and reads the places found as a set keyed by place id: each place's name, rating, review count, business status, price level, address, hours and distance from the center.",
  inputSchema: ZMapsSearchCapabilityInputSchema as unknown as z.ZodType<TMapsSearchInput>,
  outputSchema: ZMapsSearchOutputSchema,
  execute: readSearch,
  noun: "Google Maps search",
  describeTarget: describeSearch,
  target: {
    arg: "query",
    describe:
      'A Google Maps search in the person\'s words, what to look for and where, e.g. "coffee near 51.52,-0.08 within 2 km"',
    find: findSearchPhrase,
  },
  // The search itself names the set; each place is a member by its place id (docs/sets.md).
  identity: "input",
  drafterHint:
    'maps.search watches a Google Maps search as a set of places (needs query: what and where, e.g. "coffee near 51.52,-0.08 within 2 km"): competitors nearby — a new place, one closed or gone, a rating move; each place has name, rating, review count, business status, price level, address and distanceMeters.',
  draftSet: SEARCH_SET_DRAFT,
  hostOf: (_input, config) => hostOfUrl(config.maps.baseUrl),
  readBack: readSearchResult,
};

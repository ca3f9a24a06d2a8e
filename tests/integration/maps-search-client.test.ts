import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ZMapsSearchInputSchema } from "@/contracts/maps-search";
import {
  CapabilityFailure,
  executeCapability,
  makeCapabilityConfig,
  type TCapabilityEnvelope,
  type TMapsPlaceOutput,
} from "@/server/capabilities";
import type { TPlacesRequest } from "@/server/capabilities/maps-place/places-client";
import { SEARCH_FIELD_MASK, searchPlaces } from "@/server/capabilities/maps-search/search-client";
import { LONDON_PLACE_IDS as ID, LONDON_CENTER, londonPlaces } from "@/tests/fixtures/places/london";
import { startFakePlaces, type TFakePlaces } from "@/tests/fixtures/places/server";

const KEY = "search-key-456";

let places: TFakePlaces;
beforeAll(async () => {
  places = await startFakePlaces({ apiKey: KEY, places: londonPlaces() });
});
afterAll(async () => {
  await places.close();
});
beforeEach(() => {
  places.setSearchPaging({ maxPageSize: 20, pageOverlap: 0 });
  places.setSearchStatus(null);
});

const request = (apiKey = KEY): TPlacesRequest => ({
  apiKey,
  baseUrl: places.url,
  timeoutMs: 2_000,
  stats: { requests: 0, bytes: 0 },
});
const search = (input: Record<string, unknown>, req = request()) =>
  searchPlaces(ZMapsSearchInputSchema.parse(input), req);
const coffee2km = { query: "coffee", center: LONDON_CENTER, radiusMeters: 2000 };
const searchBodies = () => places.requests.filter((r) => r.path === "/v1/places:searchText").map((r) => r.body);

describe("searchPlaces against the fake Places API", () => {
  it("keeps only places inside the circle, with their distance, in Google's order", async () => {
    const req = request();
    const result = await search(coffee2km, req);
    expect(result.places.map((p) => [p.place.name, p.distanceMeters])).toEqual([
      ["Old Street Roasters", 150],
      ["Hoxton Bean", 600],
      ["Finsbury Grind", 1199],
      ["Angel Espresso Bar", 1900],
    ]);
    expect(result.complete).toBe(true);
    expect(result.places[1]?.location).toEqual({ lat: 51.52, lng: -0.071328 });
    expect(req.stats).toMatchObject({ requests: 1, httpStatus: 200 });

    // Sent as the circle's bounding rectangle (a restriction cannot be a circle); the fake answered the corner
    // place (2,121 m) inside the box, and the client cut it by distance. Camden (3.5 km) is outside the box.
    const sent = places.requests.at(-1);
    expect(sent?.apiKey).toBe(KEY);
    expect(sent?.fieldMask).toBe(SEARCH_FIELD_MASK);
    type TPoint = { latitude: number; longitude: number };
    const body = sent?.body as {
      textQuery: string;
      pageSize: number;
      locationRestriction: { rectangle: { low: TPoint; high: TPoint } };
    };
    const { low, high } = body.locationRestriction.rectangle;
    expect(body.textQuery).toBe("coffee");
    expect(body.pageSize).toBe(20);
    expect(Object.keys(body).sort()).toEqual(["locationRestriction", "pageSize", "textQuery"]);
    expect(low.latitude).toBeCloseTo(51.50183, 4);
    expect(high.latitude).toBeCloseTo(51.53817, 4);
    expect(low.longitude).toBeCloseTo(-0.10919, 4);
    expect(high.longitude).toBeCloseTo(-0.05081, 4);
  });

  it("asks for maps.place's fields under places., the location and the page token", () => {
    expect(SEARCH_FIELD_MASK).toBe(
      "places.id,places.displayName,places.formattedAddress,places.rating,places.userRatingCount," +
        "places.regularOpeningHours.weekdayDescriptions,places.priceLevel,places.businessStatus," +
        "places.editorialSummary,places.websiteUri,places.nationalPhoneNumber,places.internationalPhoneNumber," +
        "places.googleMapsUri,places.primaryType,places.location,nextPageToken",
    );
  });

  it("normalises a found place exactly as maps.place reads it by id", async () => {
    const found = (await search(coffee2km)).places.find((p) => p.place.placeId === ID["Hoxton Bean"]);
    const config = makeCapabilityConfig({ maps: { apiKey: KEY, baseUrl: places.url, timeoutMs: 2_000 } });
    const env = (await executeCapability(
      "maps.place",
      { placeId: ID["Hoxton Bean"] },
      { config },
    )) as TCapabilityEnvelope<TMapsPlaceOutput>;
    expect(env.status).toBe("completed");
    expect(found?.place).toEqual(env.results?.place);
    expect(found?.place).toEqual({
      placeId: "ChIJ_ldn_hoxton_bean",
      name: "Hoxton Bean",
      rating: 4.4,
      reviewCount: 301,
      openingHours: ["Monday: 7:30 AM – 4:00 PM", "Sunday: Closed"],
      priceLevel: "inexpensive",
      businessStatus: "operational",
      description: "Hoxton Bean, 600 m from Old Street.",
      address: "11 Example Street, London EC1V 1AA, UK",
      website: "https://hoxton-bean.example/",
      phone: "020 7946 0101",
      primaryType: "coffee_shop",
      googleMapsUri: "https://maps.google.com/?cid=1001",
    });
  });

  it("follows nextPageToken across two pages, repeating the request but for the token", async () => {
    places.setSearchPaging({ maxPageSize: 3 });
    const req = request();
    const before = searchBodies().length;
    const result = await search(coffee2km, req);
    expect(result.places.map((p) => p.place.name)).toEqual([
      "Old Street Roasters",
      "Hoxton Bean",
      "Finsbury Grind",
      "Angel Espresso Bar",
    ]);
    expect(result.complete).toBe(true);
    expect(req.stats.requests).toBe(2);
    const [first, second] = searchBodies().slice(before) as Record<string, unknown>[];
    expect(first?.pageToken).toBeUndefined();
    expect(typeof second?.pageToken).toBe("string");
    // The second page asks only for what is still missing (20 - 3 kept).
    expect(second?.pageSize).toBe(17);
    const { pageToken: _a, pageSize: _b, ...firstRest } = first ?? {};
    const { pageToken: _c, pageSize: _d, ...secondRest } = second ?? {};
    expect(secondRest).toEqual(firstRest);
  });

  it("keeps a place repeated on the next page once", async () => {
    // Pages of 3 that each start with the previous page's last place: [A B C] [C D E] [E].
    places.setSearchPaging({ maxPageSize: 3, pageOverlap: 1 });
    const req = request();
    const result = await search(coffee2km, req);
    const ids = result.places.map((p) => p.place.placeId);
    expect(ids).toEqual([ID["Old Street Roasters"], ID["Hoxton Bean"], ID["Finsbury Grind"], ID["Angel Espresso Bar"]]);
    expect(req.stats.requests).toBe(3);
    expect(result.complete).toBe(true);
  });

  it("stops at maxResults, and at three pages, and says the set is incomplete", async () => {
    const two = request();
    const cut = await search({ ...coffee2km, maxResults: 2 }, two);
    expect(cut.places.map((p) => p.place.name)).toEqual(["Old Street Roasters", "Hoxton Bean"]);
    expect(cut.complete).toBe(false);
    expect(two.stats.requests).toBe(1);
    expect(searchBodies().at(-1)).toMatchObject({ pageSize: 2 });

    places.setSearchPaging({ maxPageSize: 1 });
    const paged = request();
    const capped = await search(coffee2km, paged);
    expect(paged.stats.requests).toBe(3);
    expect(capped.places.map((p) => p.place.name)).toEqual(["Old Street Roasters", "Hoxton Bean", "Finsbury Grind"]);
    expect(capped.complete).toBe(false);
  });

  it("searches by words alone without a center, and biases toward a center without a radius", async () => {
    const noCenter = await search({ query: "bakeries" });
    expect(noCenter.places.map((p) => [p.place.name, p.distanceMeters])).toEqual([
      ["Shoreditch Sourdough", null],
      ["Clerkenwell Crust", null],
    ]);
    expect(Object.keys(searchBodies().at(-1) as object).sort()).toEqual(["pageSize", "textQuery"]);

    const biased = await search({ query: "coffee", center: LONDON_CENTER });
    expect(searchBodies().at(-1)).toMatchObject({
      locationBias: { circle: { center: { latitude: 51.52, longitude: -0.08 }, radius: 0 } },
    });
    // A bias restricts nothing: the corner and Camden places come too, with their distances.
    expect(biased.places.map((p) => p.distanceMeters)).toEqual([150, 600, 1199, 1900, 2121, 3500]);
  });

  it("is checked against a fake that refuses what Google refuses and answers only the masked fields", async () => {
    const post = async (body: unknown, fieldMask = SEARCH_FIELD_MASK) => {
      const res = await fetch(`${places.url}/v1/places:searchText`, {
        method: "POST",
        headers: { "X-Goog-Api-Key": KEY, "X-Goog-FieldMask": fieldMask, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const circle = { circle: { center: { latitude: 51.52, longitude: -0.08 }, radius: 2000 } };
    const refused = await post({ textQuery: "coffee", locationRestriction: circle });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { status: "INVALID_ARGUMENT" } });
    const masked = await post({ textQuery: "bakeries" }, "places.id,places.regularOpeningHours.weekdayDescriptions");
    expect(masked.json).toEqual({
      places: [ID["Shoreditch Sourdough"], ID["Clerkenwell Crust"]].map((id) => ({
        id,
        regularOpeningHours: {
          weekdayDescriptions: ["Monday: 7:30\u202fAM\u2009–\u20094:00\u202fPM", "Sunday: Closed"],
        },
      })),
    });
  });

  it("maps a refused key (403) to the clear message, without repeating the key", async () => {
    const err = await search(coffee2km, request("wrong-key")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CapabilityFailure);
    expect(err).toMatchObject({ code: "UNAUTHORIZED", retryable: false, details: { httpStatus: 403 } });
    expect((err as Error).message).toBe(
      "Google Maps refused the API key (403 PERMISSION_DENIED: API key not valid. Please pass a valid API key.). " +
        "Check GOOGLE_MAPS_API_KEY and that the Places API (New) is enabled for it.",
    );
    expect((err as Error).message).not.toContain("wrong-key");
  });

  it("maps a 400, 429 and 5xx from the search like maps.place does", async () => {
    places.setSearchStatus(400, {
      error: { code: 400, status: "INVALID_ARGUMENT", message: "Invalid text_query." },
    });
    await expect(search(coffee2km)).rejects.toMatchObject({
      code: "INVALID_INPUT",
      retryable: false,
      message:
        'Google Maps rejected the request (400 INVALID_ARGUMENT: Invalid text_query.). Check the search "coffee".',
    });
    places.setSearchStatus(429, { error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "Quota exceeded." } });
    await expect(search(coffee2km)).rejects.toMatchObject({ code: "RATE_LIMITED", retryable: true });
    places.setSearchStatus(503);
    await expect(search(coffee2km)).rejects.toMatchObject({ code: "HTTP_ERROR", retryable: true });
  });

  it("sees a place added, removed, closed or changed between two searches", async () => {
    // Its own fake, so the changes do not leak into the other tests.
    const own = await startFakePlaces({ apiKey: KEY, places: londonPlaces() });
    const run = () => searchPlaces(ZMapsSearchInputSchema.parse(coffee2km), { ...request(), baseUrl: own.url });
    const before = await run();
    expect(before.places.map((p) => p.place.name)).toEqual([
      "Old Street Roasters",
      "Hoxton Bean",
      "Finsbury Grind",
      "Angel Espresso Bar",
    ]);

    own.setPlace("ChIJ_ldn_new_kiosk", {
      id: "ChIJ_ldn_new_kiosk",
      displayName: { text: "New Coffee Kiosk" },
      types: ["coffee_shop"],
      location: { latitude: 51.5209, longitude: -0.0795 },
    });
    own.removePlace(ID["Finsbury Grind"] as string);
    own.updatePlace(ID["Hoxton Bean"] as string, { businessStatus: "CLOSED_PERMANENTLY", rating: 3.9 });
    const after = await run();
    expect(after.places.map((p) => [p.place.name, p.distanceMeters])).toEqual([
      ["Old Street Roasters", 150],
      ["Hoxton Bean", 600],
      ["Angel Espresso Bar", 1900],
      ["New Coffee Kiosk", 106],
    ]);
    expect(after.places[1]?.place).toMatchObject({ businessStatus: "closed_permanently", rating: 3.9 });
    expect(after.places[3]?.place).toMatchObject({ name: "New Coffee Kiosk", rating: null, openingHours: [] });
    expect(before.places[1]?.place).toMatchObject({ businessStatus: "operational", rating: 4.4 });
    await own.close();
  });
});

import { describe, expect, it } from "vitest";
import { getCapability, parseCapabilityInput } from "@/server/capabilities";
import { findSearchPhrase } from "@/server/capabilities/maps-search/find-search-phrase";
import { readSearchResult } from "@/server/capabilities/maps-search/read-back";
import { ZMapsSearchCapabilityInputSchema } from "@/server/capabilities/maps-search/search-input";
import { findTarget } from "@/server/intelligence/setup/find-target";

/**
 * maps.search's descriptor without the network (docs/capabilities.md): the search phrase spotted in a message, the
 * person's words read into the structured input (and that input read again unchanged), the label, and the read-back's
 * members and order-free document.
 */

describe("findSearchPhrase", () => {
  it.each([
    [
      "Is anyone new competing with us? Watch coffee near 51.52,-0.08 within 2 km.",
      "coffee near 51.52,-0.08 within 2 km",
    ],
    ["Tell me when a new coffee shop opens near 51.52, -0.08", "coffee shop near 51.52, -0.08"],
    ["Hey, any new bakeries within 500 m of 51.5072,-0.1276?", "bakeries within 500 m of 51.5072,-0.1276"],
    ["search: vegan restaurants near 51.52,-0.08, and tell me weekly", "vegan restaurants near 51.52,-0.08"],
    ['"coffee around 40.7128,-74.006 within 1 mile" please', "coffee around 40.7128,-74.006 within 1 mile"],
  ])("%s → %s", (text, phrase) => {
    expect(findSearchPhrase(text)).toBe(phrase);
  });

  it("needs a location word before the point: a pair of prices or a bare pair is no search", () => {
    expect(findSearchPhrase("The price went from 4.50, 3.99 last week")).toBeNull();
    expect(findSearchPhrase("coffee 51.52,-0.08")).toBeNull();
    expect(findSearchPhrase("coffee within 2 km")).toBeNull();
  });

  it("keeps what the parser must refuse, so the refusal is said in words", () => {
    expect(findSearchPhrase("coffee near 95.5,-0.08")).toBe("coffee near 95.5,-0.08");
    expect(findSearchPhrase("near 51.52,-0.08")).toBe("near 51.52,-0.08");
  });
});

describe("maps.search in the registry", () => {
  it("is found after addresses and place ids, and labelled with the person's words", () => {
    expect(findTarget("Any new coffee near 51.52,-0.08 within 2 km?")).toEqual({
      capability: "maps.search",
      input: { query: "coffee near 51.52,-0.08 within 2 km" },
      label: 'Google Maps search "coffee near 51.52,-0.08 within 2 km"',
    });
    expect(findTarget("Did the café ChIJN1t_tDeuEmsRUsoyG83frY4 near 51.52,-0.08 change?")?.capability).toBe(
      "maps.place",
    );
    expect(findTarget("coffee near 51.52,-0.08 https://example.com/menu")?.capability).toBe("web.scrape");
    expect(findTarget("Tell me if Acme undercuts our plan")).toBeNull();
  });

  it("describes a parsed search by what, how far and where", () => {
    const search = getCapability("maps.search");
    const label = (query: string) => search?.describeTarget(parseCapabilityInput("maps.search", { query }));
    expect(label("coffee near 51.52,-0.08 within 2 km")).toBe('Google Maps search "coffee" within 2 km of 51.52,-0.08');
    expect(label("bakeries within 500 m of 51.5072,-0.1276")).toBe(
      'Google Maps search "bakeries" within 500 m of 51.5072,-0.1276',
    );
    expect(label("coffee near 51.52,-0.08")).toBe('Google Maps search "coffee" near 51.52,-0.08');
    expect(label("vegan restaurants in Shoreditch")).toBe('Google Maps search "vegan restaurants in Shoreditch"');
    expect(search?.identity).toBe("input");
    expect(search?.draftSet?.fields.map((f) => f.value)).toContain("distanceMeters");
  });
});

describe("ZMapsSearchCapabilityInputSchema", () => {
  it("reads the person's words into the structured search, and reads that again unchanged", () => {
    const parsed = ZMapsSearchCapabilityInputSchema.parse({ query: "  coffee near 51.52,-0.08 within 2 km " });
    expect(parsed).toEqual({ query: "coffee", center: { lat: 51.52, lng: -0.08 }, radiusMeters: 2000, maxResults: 20 });
    expect(ZMapsSearchCapabilityInputSchema.parse(parsed)).toEqual(parsed);
    const named = ZMapsSearchCapabilityInputSchema.parse({ query: "vegan restaurants in Shoreditch", maxResults: 40 });
    expect(named).toEqual({ query: "vegan restaurants in Shoreditch", maxResults: 40 });
    expect(ZMapsSearchCapabilityInputSchema.parse(named)).toEqual(named);
  });

  it("takes a structured search as it is: its query is what to look for, not where", () => {
    const input = { query: "coffee near the station", center: { lat: 51.5, lng: -0.1 }, radiusMeters: 300 };
    expect(ZMapsSearchCapabilityInputSchema.parse(input)).toEqual({ ...input, maxResults: 20 });
  });

  it("refuses with the parser's words, on the query", () => {
    const refused = ZMapsSearchCapabilityInputSchema.safeParse({ query: "cafés within 2 km" });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues).toMatchObject([
      { path: ["query"], message: expect.stringMatching(/^"within 2 km" needs a point to search around/) },
    ]);
    expect(() => parseCapabilityInput("maps.search", { query: "tea near 12.5,200.1" })).toThrow(
      "Invalid input for maps.search: query: 200.1 is not a longitude: it must be between -180 and 180.",
    );
  });
});

describe("readSearchResult", () => {
  const found = (id: string, name: string, distanceMeters: number | null) => ({
    place: {
      placeId: id,
      name,
      rating: 4.5,
      reviewCount: 10,
      openingHours: [],
      priceLevel: null,
      businessStatus: "operational" as const,
      description: null,
      address: null,
      website: null,
      phone: null,
      primaryType: "cafe",
      googleMapsUri: null,
    },
    location: null,
    distanceMeters,
  });
  const results = (order: "a-first" | "b-first") => ({
    query: "coffee",
    center: { lat: 51.52, lng: -0.08 },
    radiusMeters: 2000,
    places:
      order === "a-first" ? [found("a", "A", 10), found("b", "B", 20)] : [found("b", "B", 20), found("a", "A", 10)],
    complete: order === "a-first",
    fetchedAt: order === "a-first" ? "2026-01-01T00:00:00.000Z" : "2026-01-02T00:00:00.000Z",
  });

  it("lists members in Google's order and a document that ignores the order, the time and completeness", () => {
    const one = readSearchResult(undefined, results("a-first"));
    const other = readSearchResult(undefined, results("b-first"));
    expect(one.items?.map((m) => m.key)).toEqual(["a", "b"]);
    expect(other.items?.map((m) => m.key)).toEqual(["b", "a"]);
    expect(other.document).toEqual(one.document);
    expect(one.items?.[0]?.values).toMatchObject({ placeId: "a", name: "A", distanceMeters: 10 });
    expect(one.ids).toEqual({});
  });

  it("reads an empty or partial capture without throwing", () => {
    expect(readSearchResult(undefined, undefined)).toMatchObject({ items: [], source: 'Google Maps search ""' });
    expect(readSearchResult({ query: "tea" }, {}).document).toEqual({
      query: "tea",
      center: null,
      radiusMeters: null,
      places: [],
    });
  });
});

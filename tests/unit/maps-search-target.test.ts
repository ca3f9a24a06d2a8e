import { describe, expect, it } from "vitest";
import { ZMapsSearchInputSchema } from "@/contracts/maps-search";
import { boundingRectangle, haversineMeters } from "@/server/capabilities/maps-search/geo";
import { parseSearchTarget, searchTargetToInput } from "@/server/capabilities/maps-search/parse-search-target";

const ok = (words: string) => {
  const r = parseSearchTarget(words);
  if (!r.ok) throw new Error(`expected ${words} to parse, got: ${r.problem}`);
  return r.target;
};
const problem = (words: string) => {
  const r = parseSearchTarget(words);
  if (r.ok) throw new Error(`expected ${words} to be refused, got ${JSON.stringify(r.target)}`);
  return r.problem;
};

describe("parseSearchTarget", () => {
  it("reads 'X near lat,lng within N km'", () => {
    expect(ok("coffee near 51.52,-0.08 within 2 km")).toEqual({
      text: "coffee",
      center: { lat: 51.52, lng: -0.08 },
      radiusMeters: 2000,
    });
  });

  it("reads 'X within N m of lat,lng'", () => {
    expect(ok("bakeries within 500 m of 51.5072,-0.1276")).toEqual({
      text: "bakeries",
      center: { lat: 51.5072, lng: -0.1276 },
      radiusMeters: 500,
    });
  });

  it("keeps a named area in the text and has no center", () => {
    expect(ok("vegan restaurants in Shoreditch")).toEqual({
      text: "vegan restaurants in Shoreditch",
      center: null,
      radiusMeters: null,
    });
  });

  it("reads the variants people write", () => {
    expect(ok("coffee within 2km of 51.52, -0.08")).toEqual({
      text: "coffee",
      center: { lat: 51.52, lng: -0.08 },
      radiusMeters: 2000,
    });
    expect(ok("Coffee shops, within 1.5 kilometres, around 51.52 -0.08")).toEqual({
      text: "Coffee shops",
      center: { lat: 51.52, lng: -0.08 },
      radiusMeters: 1500,
    });
    expect(ok("ramen within a 1 mile radius of -33.8688,151.2093")).toEqual({
      text: "ramen",
      center: { lat: -33.8688, lng: 151.2093 },
      radiusMeters: 1609,
    });
    expect(ok("  pharmacy   near 40.7128,-74.006  ")).toEqual({
      text: "pharmacy",
      center: { lat: 40.7128, lng: -74.006 },
      radiusMeters: null,
    });
    expect(ok("bookshops 48.8566,2.3522 within 750 metres")).toEqual({
      text: "bookshops",
      center: { lat: 48.8566, lng: 2.3522 },
      radiusMeters: 750,
    });
    // Integers in the text are not coordinates without a preposition.
    expect(ok("top 10, 20 pizza places")).toEqual({
      text: "top 10, 20 pizza places",
      center: null,
      radiusMeters: null,
    });
  });

  it("accepts the edges of the ranges", () => {
    expect(ok("station near 90,180 within 50 km")).toEqual({
      text: "station",
      center: { lat: 90, lng: 180 },
      radiusMeters: 50_000,
    });
    expect(ok("bench near -90,-180 within 1 m")).toMatchObject({ center: { lat: -90, lng: -180 }, radiusMeters: 1 });
  });

  it("refuses a latitude or longitude out of range, saying which", () => {
    expect(problem("coffee near 91.5,-120")).toBe("91.5 is not a latitude: it must be between -90 and 90.");
    expect(problem("coffee near 151.2093,-33.8688")).toBe(
      "151.2093 is not a latitude: it must be between -90 and 90. Did you mean -33.8688,151.2093? Give the latitude first.",
    );
    expect(problem("coffee near 51.52,-190")).toBe("-190 is not a longitude: it must be between -180 and 180.");
  });

  it("refuses a radius out of range", () => {
    expect(problem("coffee near 51.52,-0.08 within 60 km")).toBe(
      "A radius of 60 km is too large: Google Maps searches at most 50 km around a point.",
    );
    expect(problem("coffee near 51.52,-0.08 within 40 miles")).toBe(
      "A radius of 40 miles is too large: Google Maps searches at most 50 km around a point.",
    );
    expect(problem("coffee near 51.52,-0.08 within 0.2 m")).toBe("A radius of 0.2 m is too small: use at least 1 m.");
  });

  it("refuses a radius without a point, and a place without words", () => {
    expect(problem("coffee within 2 km of Shoreditch")).toBe(
      '"within 2 km" needs a point to search around: add "near <latitude>,<longitude>", e.g. near 51.52,-0.08.',
    );
    expect(problem("near 51.52,-0.08 within 2 km")).toBe(
      'Say what to look for as well as where, e.g. "coffee near 51.52,-0.08 within 2 km".',
    );
    expect(problem("   ")).toBe('Say what to look for as well as where, e.g. "coffee near 51.52,-0.08 within 2 km".');
  });
});

describe("ZMapsSearchInputSchema", () => {
  it("fills maxResults and takes a parsed target", () => {
    const input = searchTargetToInput(ok("coffee near 51.52,-0.08 within 2 km"));
    expect(ZMapsSearchInputSchema.parse(input)).toEqual({
      query: "coffee",
      center: { lat: 51.52, lng: -0.08 },
      radiusMeters: 2000,
      maxResults: 20,
    });
    expect(ZMapsSearchInputSchema.parse({ query: "  vegan restaurants in Shoreditch " })).toEqual({
      query: "vegan restaurants in Shoreditch",
      maxResults: 20,
    });
  });

  it("refuses out-of-range values with the reason", () => {
    const issues = (v: unknown) => {
      const r = ZMapsSearchInputSchema.safeParse(v);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(issues({ query: "coffee", maxResults: 61 })).toEqual([
      "maxResults: Google Maps answers at most 60 places for one search.",
    ]);
    expect(issues({ query: "coffee", maxResults: 0 })).toEqual(["maxResults: Ask for at least 1 place."]);
    expect(issues({ query: "coffee", center: { lat: 95, lng: 0 } })).toEqual([
      "center.lat: Latitude must be between -90 and 90.",
    ]);
    expect(issues({ query: "coffee", center: { lat: 51.5, lng: 0 }, radiusMeters: 50_001 })).toEqual([
      "radiusMeters: The radius must be at most 50 km: Google Maps searches no wider.",
    ]);
    expect(issues({ query: "coffee", radiusMeters: 500 })).toEqual([
      "radiusMeters: A radius needs a center: give the point to search around.",
    ]);
    expect(issues({ query: "   " })).toEqual([
      "query: Say what to look for, e.g. coffee or vegan restaurants in Shoreditch.",
    ]);
  });

  it("describes its fields for API documentation", () => {
    const shape = ZMapsSearchInputSchema.shape;
    expect(shape.maxResults.description).toBe("How many places to keep, in Google's order (1 to 60, default 20)");
    expect(shape.query.description).toMatch(/^What to look for/);
  });
});

describe("the search circle's geometry", () => {
  it("measures great-circle distances", () => {
    expect(Math.round(haversineMeters({ lat: 51.52, lng: -0.08 }, { lat: 51.521349, lng: -0.08 }))).toBe(150);
    // London to Paris, about 344 km.
    expect(Math.round(haversineMeters({ lat: 51.5072, lng: -0.1276 }, { lat: 48.8566, lng: 2.3522 }) / 1000)).toBe(344);
  });

  it("boxes a circle, across the antimeridian too, and gives up at a pole", () => {
    const box = boundingRectangle({ lat: 0, lng: 0 }, 111_195);
    expect(box?.low.lat).toBeCloseTo(-1, 3);
    expect(box?.high.lng).toBeCloseTo(1, 3);
    const fiji = boundingRectangle({ lat: -17.7, lng: 179.99 }, 5_000);
    expect(fiji?.low.lng).toBeCloseTo(179.943, 3);
    expect(fiji?.high.lng).toBeCloseTo(-179.963, 3); // low.lng > high.lng: the box crosses the antimeridian
    expect(boundingRectangle({ lat: 89.9, lng: 10 }, 20_000)).toBeNull();
  });
});

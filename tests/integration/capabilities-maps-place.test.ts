import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createMemoryLedger,
  executeCapability,
  hashStructuredDocument,
  makeCapabilityConfig,
  PLACE_FIELD_MASK,
  type TCapabilityEnvelope,
  type TMapsPlaceOutput,
} from "@/server/capabilities";
import { startFakePlaces, type TFakePlaces } from "@/tests/fixtures/places/server";

const KEY = "test-key-123";
const PLACE_ID = "ChIJN1t_tDeuEmsRUsoyG83frY4";

const googlePlace = (over: Record<string, unknown> = {}) => ({
  id: PLACE_ID,
  displayName: { text: "Café  Bellwether", languageCode: "en" },
  formattedAddress: "1 Harbour St, Sydney NSW 2000, Australia",
  rating: 4.4,
  userRatingCount: 312,
  regularOpeningHours: {
    weekdayDescriptions: ["Monday: 9:00\u202fAM\u2009–\u20095:00\u202fPM", "Tuesday: Closed"],
  },
  priceLevel: "PRICE_LEVEL_MODERATE",
  businessStatus: "OPERATIONAL",
  editorialSummary: { text: "Cosy harbourside café.", languageCode: "en" },
  websiteUri: "https://cafe.example/",
  nationalPhoneNumber: "(02) 9374 4000",
  googleMapsUri: "https://maps.google.com/?cid=1",
  primaryType: "cafe",
  ...over,
});

let places: TFakePlaces;
beforeAll(async () => {
  places = await startFakePlaces({ apiKey: KEY, places: { [PLACE_ID]: googlePlace() } });
});
afterAll(async () => {
  await places.close();
});

/** `null` = no key configured. */
const cfg = (apiKey: string | null = KEY) =>
  makeCapabilityConfig({ maps: { apiKey: apiKey ?? undefined, baseUrl: places.url, timeoutMs: 2_000 } });
const run = async (placeId: string, apiKey?: string) =>
  (await executeCapability(
    "maps.place",
    { placeId },
    { config: cfg(apiKey) },
  )) as TCapabilityEnvelope<TMapsPlaceOutput>;

describe("maps.place against a local fake Places API", () => {
  it("requests place details with the key and field mask and normalises the place", async () => {
    const env = await run(PLACE_ID);
    expect(env.status).toBe("completed");
    expect(env.results?.place).toEqual({
      placeId: PLACE_ID,
      name: "Café Bellwether",
      rating: 4.4,
      reviewCount: 312,
      openingHours: ["Monday: 9:00 AM – 5:00 PM", "Tuesday: Closed"],
      priceLevel: "moderate",
      businessStatus: "operational",
      description: "Cosy harbourside café.",
      address: "1 Harbour St, Sydney NSW 2000, Australia",
      website: "https://cafe.example/",
      phone: "(02) 9374 4000",
      primaryType: "cafe",
      googleMapsUri: "https://maps.google.com/?cid=1",
    });
    const req = places.requests.at(-1);
    expect(req).toEqual({ path: `/v1/places/${PLACE_ID}`, apiKey: KEY, fieldMask: PLACE_FIELD_MASK });
    expect(PLACE_FIELD_MASK).not.toMatch(/openNow|currentOpeningHours/);
    const doc = env.results?.document;
    expect(doc).toMatchObject({ kind: "json", title: "Café Bellwether", json: env.results?.place });
  });

  it("accepts the places/{id} resource name", async () => {
    expect((await run(`places/${PLACE_ID}`)).results?.place.placeId).toBe(PLACE_ID);
  });

  it("hashes the same place the same way and a rating tick differently", async () => {
    const a = (await run(PLACE_ID)).results as TMapsPlaceOutput;
    const b = (await run(PLACE_ID)).results as TMapsPlaceOutput;
    expect(hashStructuredDocument(b.document, "v1")).toBe(hashStructuredDocument(a.document, "v1"));
    places.setPlace("tick", googlePlace({ id: "tick", rating: 4.3 }));
    places.setPlace("same", googlePlace({ id: "same" }));
    const tick = (await run("tick")).results as TMapsPlaceOutput;
    const same = (await run("same")).results as TMapsPlaceOutput;
    expect(hashStructuredDocument(tick.document, "v1")).not.toBe(hashStructuredDocument(same.document, "v1"));
  });

  it("maps missing fields to null / []", async () => {
    places.setPlace("bare", { id: "bare", displayName: { text: "Bare" }, priceLevel: "PRICE_LEVEL_UNSPECIFIED" });
    const env = await run("bare");
    expect(env.results?.place).toMatchObject({
      name: "Bare",
      rating: null,
      reviewCount: null,
      openingHours: [],
      priceLevel: null,
      businessStatus: null,
      description: null,
    });
  });

  it("fails with an actionable message when no key is configured, without calling Google", async () => {
    const before = places.requests.length;
    const ledger = createMemoryLedger();
    const env = await executeCapability("maps.place", { placeId: PLACE_ID }, { config: cfg(null), ledger });
    expect(env).toEqual({
      status: "failed",
      error: {
        code: "NOT_CONFIGURED",
        message: expect.stringMatching(/^Google Maps is not configured: set GOOGLE_MAPS_API_KEY/),
        retryable: false,
      },
    });
    expect(places.requests.length).toBe(before);
    expect(ledger.calls).toBe(0);
  });

  it("maps 404 to a not-found error", async () => {
    const env = await run("ChIJdoesnotexist");
    expect(env.status).toBe("failed");
    expect(env.error).toMatchObject({ code: "NOT_FOUND", retryable: false, details: { httpStatus: 404 } });
    expect(env.error?.message).toMatch(
      /^Google Maps has no place with ID ChIJdoesnotexist \(404 NOT_FOUND\)\. Check the place ID/,
    );
  });

  it("maps 403 to an invalid-key error that names the setting", async () => {
    const env = await run(PLACE_ID, "wrong-key");
    expect(env.error).toMatchObject({ code: "UNAUTHORIZED", retryable: false });
    expect(env.error?.message).toMatch(
      /Google Maps refused the API key \(403 PERMISSION_DENIED: API key not valid.*\)\. Check GOOGLE_MAPS_API_KEY/,
    );
    expect(env.error?.message).not.toContain("wrong-key");
  });

  it("maps 5xx and 429 to retryable errors", async () => {
    places.setStatus("flaky", 503);
    expect((await run("flaky")).error).toMatchObject({ code: "HTTP_ERROR", retryable: true });
    places.setStatus("quota", 429, { error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "Quota exceeded." } });
    expect((await run("quota")).error).toMatchObject({ code: "RATE_LIMITED", retryable: true });
  });

  it("honours a 429's Retry-After for every maps call to that host: the next one is deferred without a request", async () => {
    // A Places server of its own: the hold is on its host, so the other tests' server stays open.
    const held = await startFakePlaces({ apiKey: KEY, places: { [PLACE_ID]: googlePlace() } });
    try {
      const config = makeCapabilityConfig({ maps: { apiKey: KEY, baseUrl: held.url, timeoutMs: 2_000 } });
      held.setStatus("quota", 429, { error: { code: 429, status: "RESOURCE_EXHAUSTED" } }, { "retry-after": "30" });
      const refused = await executeCapability("maps.place", { placeId: "quota" }, { config });
      expect(refused.error).toMatchObject({
        code: "RATE_LIMITED",
        retryable: true,
        details: { httpStatus: 429, retryAfterMs: 30_000 },
      });
      expect(refused.error?.message).toContain("It asked us to wait 30 s.");
      const sent = held.requests.length;
      const next = await executeCapability("maps.place", { placeId: PLACE_ID }, { config });
      expect(next.error).toMatchObject({ code: "RATE_LIMITED", retryable: true });
      expect(typeof next.error?.details?.retryAt).toBe("string");
      expect(held.requests.length).toBe(sent);
      // A 503 without the header carries no wait.
      const other = await startFakePlaces({ apiKey: KEY, places: {} });
      try {
        other.setStatus("down", 503);
        const config2 = makeCapabilityConfig({ maps: { apiKey: KEY, baseUrl: other.url, timeoutMs: 2_000 } });
        const down = await executeCapability("maps.place", { placeId: "down" }, { config: config2 });
        expect(down.error?.details).not.toHaveProperty("retryAfterMs");
      } finally {
        await other.close();
      }
    } finally {
      await held.close();
    }
  });

  it("reports an unreachable Places server as a retryable connection failure", async () => {
    const config = makeCapabilityConfig({ maps: { apiKey: KEY, baseUrl: "http://127.0.0.1:9", timeoutMs: 2_000 } });
    const env = await executeCapability("maps.place", { placeId: PLACE_ID }, { config });
    expect(env.error).toMatchObject({ code: "CONNECTION_FAILED", retryable: true });
  });

  it("rejects malformed place IDs before calling Google", async () => {
    const before = places.requests.length;
    const env = await run("../../admin");
    expect(env.error?.code).toBe("INVALID_INPUT");
    expect(env.error?.message).toMatch(/^Invalid input for maps\.place: placeId: A Google Maps place ID contains only/);
    expect(places.requests.length).toBe(before);
  });

  it("records one ledger entry per call", async () => {
    const ledger = createMemoryLedger();
    await executeCapability("maps.place", { placeId: PLACE_ID }, { config: cfg(), ledger, callKey: "run-9:crawl" });
    expect(ledger.calls).toBe(1);
    expect(ledger.entries.get("run-9:crawl")).toMatchObject({
      capability: "maps.place",
      status: "completed",
      requests: 1,
      httpStatus: 200,
    });
  });
});

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createMemoryLedger,
  executeCapability,
  getCapability,
  makeCapabilityConfig,
  parseCapabilityInput,
  type TCapabilityConfig,
} from "@/server/capabilities";
import { parseDefinition } from "@/server/intelligence/definition";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { createSetupSession, getSetupState } from "@/server/intelligence/setup";
import { listTrackerSummaries } from "@/server/trackers";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { countSql } from "../bench/sql-counter";
import { LONDON_PLACE_IDS as ID, LONDON_CENTER, londonPlaceAt, londonPlaces } from "../fixtures/places/london";
import { startFakePlaces, type TFakePlaces } from "../fixtures/places/server";
import { createTestDb, type TTestDb } from "../helpers/db";
import { setupTurn } from "../helpers/setup-turn";
import { createActiveTracker } from "../helpers/trackers";

/**
 * maps.search (docs/capabilities.md, docs/sets.md): a Google Maps search watched as a set of places through the real
 * refresh, against the fake Places API over HTTP. The search "coffee near 51.52,-0.08 within 2 km" finds the fixture's
 * four coffee places (150 m, 600 m, 1,199 m and 1,900 m from the center); the tests open, close and re-rate places
 * between refreshes.
 */

const KEY = "maps-search-key";
const WORDS = "coffee near 51.52,-0.08 within 2 km";

let t: TTestDb;
let userId: string;
let places: TFakePlaces;

beforeAll(async () => {
  t = await createTestDb();
  userId = (await ensureLocalUser(t.db)).id;
});
afterAll(async () => {
  await t?.close();
});
// A fresh fake per test: each one changes what the search answers.
beforeEach(async () => {
  places = await startFakePlaces({ apiKey: KEY, places: londonPlaces() });
});
afterEach(async () => {
  await places?.close();
});

/** null: no key configured. */
const config = (apiKey: string | null = KEY): TCapabilityConfig =>
  makeCapabilityConfig({ maps: { apiKey: apiKey ?? undefined, baseUrl: places.url, timeoutMs: 2_000 } });
const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: config(),
});

/**
 * Each place's name, rating, business status and distance, read by JSON pointer from the member's values; a rating
 * move of 0.2 and a new business status are material. The set's rule: a new place is material only within 1 km.
 */
const searchDefinition = () => ({
  fields: [
    { name: "name", type: "string", description: "Name", extractor: { kind: "json_pointer", pointer: "/name" } },
    { name: "rating", type: "number", description: "Rating", extractor: { kind: "json_pointer", pointer: "/rating" } },
    {
      name: "business_status",
      type: "string",
      description: "Open or closed",
      extractor: { kind: "json_pointer", pointer: "/businessStatus" },
    },
    {
      name: "distance_meters",
      type: "integer",
      description: "Metres from the center",
      extractor: { kind: "json_pointer", pointer: "/distanceMeters" },
    },
  ],
  identityRule: { kind: "input" },
  materiality: {
    name: { kind: "any_change" },
    rating: { kind: "numeric", absolute: 0.2 },
    business_status: { kind: "any_change" },
    distance_meters: { kind: "ignore" },
  },
  set: {
    missingAfter: 2,
    maxEntities: 200,
    rules: [{ kind: "appeared", withinMeters: 1000 }, { kind: "disappeared" }],
  },
});

async function searchTracker(): Promise<string> {
  const { tracker } = await createActiveTracker(t.db, {
    capability: "maps.search",
    capabilityInput: { query: WORDS },
    definition: searchDefinition(),
    decision: "Is anyone new competing with us within 1 km?",
    userId,
  });
  const baseline = await refreshTracker(t.db, tracker.id, options());
  expect(baseline).toMatchObject({ status: "completed", outcome: "baseline" });
  return tracker.id;
}

const rollUps = (trackerId: string) =>
  t.db.entityChange.findMany({ where: { trackerId }, orderBy: { capturedAt: "asc" } });
const members = (trackerId: string) =>
  t.db.trackedEntity.findMany({
    where: { trackerId, entityKey: { startsWith: "item:" } },
    include: { state: true },
    orderBy: { entityKey: "asc" },
  });
type TDelta = Record<string, { from: unknown; to: unknown }>;
type TDecisions = Record<string, { verdict: string; decidedBy: string; reason: string }>;
const deltaOf = (row: { delta: unknown } | undefined) => (row?.delta ?? {}) as TDelta;
const decisionsOf = (row: { decisions: unknown } | undefined) => (row?.decisions ?? {}) as TDecisions;

describe("maps.search reads a search as a set of places", () => {
  it("reads the fixture's places in the circle, each keyed by place id with maps.place's fields and its distance", async () => {
    const ledger = createMemoryLedger();
    const envelope = await executeCapability("maps.search", { query: WORDS }, { config: config(), ledger });
    expect(envelope.status).toBe("completed");
    const search = getCapability("maps.search");
    if (!search) throw new Error("maps.search is not registered");
    const back = search.readBack(parseCapabilityInput("maps.search", { query: WORDS }), envelope.results);
    // Google's order in the members; the place id is the key, never the position.
    expect(back.items?.map((m) => [m.key, m.values.name, m.values.distanceMeters])).toEqual([
      [ID["Old Street Roasters"], "Old Street Roasters", 150],
      [ID["Hoxton Bean"], "Hoxton Bean", 600],
      [ID["Finsbury Grind"], "Finsbury Grind", 1199],
      [ID["Angel Espresso Bar"], "Angel Espresso Bar", 1900],
    ]);
    expect(back.items?.[1]?.values).toMatchObject({
      placeId: ID["Hoxton Bean"],
      rating: 4.4,
      reviewCount: 301,
      businessStatus: "operational",
      priceLevel: "inexpensive",
      openingHours: ["Monday: 7:30 AM – 4:00 PM", "Sunday: Closed"],
      distanceMeters: 600,
    });
    // The document holds the search and the members sorted by key, so the hash ignores Google's order.
    const document = back.document as { query: string; radiusMeters: number; places: { key: string }[] };
    expect(document).toMatchObject({ query: "coffee", center: LONDON_CENTER, radiusMeters: 2000 });
    const keys = document.places.map((p) => p.key);
    expect(keys).toEqual([...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(keys).toHaveLength(4);
    expect(back.source).toBe('Google Maps search "coffee"');
    // One search request, recorded once in the ledger.
    expect([...ledger.entries.values()]).toMatchObject([
      { capability: "maps.search", status: "completed", requests: 1 },
    ]);
    expect(search.describeTarget(parseCapabilityInput("maps.search", { query: WORDS }))).toBe(
      'Google Maps search "coffee" within 2 km of 51.52,-0.08',
    );
  });

  it("an unchanged search is an unchanged run at the floor, and so is the same places in another order", async () => {
    const trackerId = await searchTracker();
    expect(await members(trackerId)).toHaveLength(4);
    expect((await rollUps(trackerId)).map((c) => c.materiality)).toEqual(["baseline"]);

    const counter = countSql(t.pglite);
    const same = await refreshTracker(t.db, trackerId, options()).finally(() => counter.restore());
    expect(same).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 0 });
    expect(counter.statements).toBeLessThanOrEqual(2);

    // Same places, reversed: the document sorts them by key, so the pre-check stops at the floor too.
    places.setSearchOrder("reversed");
    const again = countSql(t.pglite);
    const reordered = await refreshTracker(t.db, trackerId, options()).finally(() => again.restore());
    expect(reordered).toMatchObject({ status: "completed", outcome: "unchanged" });
    expect(again.statements).toBeLessThanOrEqual(2);
    expect(await rollUps(trackerId)).toHaveLength(1);
  });

  // Set rules read the distance by the draft's field name, distance_meters (set-rule-schema.ts DISTANCE_METERS).
  it("a new place within 1 km is material under “appeared within 1000 m”: one roll-up naming it", async () => {
    const trackerId = await searchTracker();
    const brewLab = londonPlaceAt({ id: "ChIJ_ldn_brew_lab", name: "Brew Lab", meters: 700 });
    places.setPlace(brewLab.id, brewLab);

    const run = await refreshTracker(t.db, trackerId, options());
    expect(run).toMatchObject({ status: "completed", outcome: "material" });
    const rows = await rollUps(trackerId);
    expect(rows.map((r) => r.materiality)).toEqual(["baseline", "material"]);
    const delta = rows[1]?.delta as TDelta;
    expect(delta.appeared?.to).toEqual(["Brew Lab"]);
    expect(delta.members).toEqual({ from: 4, to: 5 });
    expect(decisionsOf(rows[1]).appeared).toMatchObject({
      verdict: "material",
      decidedBy: "code",
      reason: "1 new item within 1 km: Brew Lab (700 m)",
    });
    // The notice rides with the roll-up only.
    expect(await t.db.changeOutbox.count({ where: { change: { trackerId } } })).toBe(1);
  });

  it("a new place at 1.8 km is not material under that rule: recorded as notable", async () => {
    const trackerId = await searchTracker();
    const far = londonPlaceAt({ id: "ChIJ_ldn_far_flat_white", name: "Far Flat White", meters: 1800, toward: "east" });
    places.setPlace(far.id, far);

    const run = await refreshTracker(t.db, trackerId, options());
    expect(run).toMatchObject({ status: "completed", outcome: "notable" });
    const rows = await rollUps(trackerId);
    expect(rows.map((r) => r.materiality)).toEqual(["baseline", "notable"]);
    expect(deltaOf(rows[1]).appeared?.to).toEqual(["Far Flat White"]);
    expect(decisionsOf(rows[1]).appeared?.verdict).toBe("notable");
    const added = (await members(trackerId)).find((m) => m.entityKey.endsWith(far.id));
    expect(added?.state?.fields).toMatchObject({ name: "Far Flat White", distance_meters: 1800 });
  });

  it("a rating move of 0.2 or more is the member's material change; a 0.1 tick is noise with no entry", async () => {
    const trackerId = await searchTracker();
    places.updatePlace(ID["Hoxton Bean"] as string, { rating: 4.5 });
    const tick = await refreshTracker(t.db, trackerId, options());
    expect(tick.status).toBe("completed");
    expect(tick.outcome).not.toBe("material");
    expect(await rollUps(trackerId)).toHaveLength(1);

    places.updatePlace(ID["Hoxton Bean"] as string, { rating: 4.1 });
    const drop = await refreshTracker(t.db, trackerId, options());
    expect(drop).toMatchObject({ status: "completed", outcome: "material" });
    const rows = await rollUps(trackerId);
    expect(rows).toHaveLength(2);
    expect(deltaOf(rows[1]).changed?.to).toEqual([expect.stringMatching(/^Hoxton Bean/)]);
    // The member's own entry: its rating, now 4.1 (the tick before it recorded nothing).
    const own = await t.db.memberChange.findMany({ where: { trackerId }, include: { entity: true } });
    expect(own.map((e) => [e.entity.entityKey.endsWith(ID["Hoxton Bean"] as string), e.materiality])).toEqual([
      [true, "material"],
    ]);
    expect(deltaOf(own[0]).rating?.to).toBe(4.1);
  });

  it("a place missing from one read is not gone; missing for missingAfter reads it has disappeared", async () => {
    const trackerId = await searchTracker();
    places.removePlace(ID["Finsbury Grind"] as string);

    const once = await refreshTracker(t.db, trackerId, options());
    expect(once).toMatchObject({ status: "completed", outcome: "unchanged" });
    expect(await rollUps(trackerId)).toHaveLength(1);
    let finsbury = (await members(trackerId)).find((m) => m.entityKey.endsWith(ID["Finsbury Grind"] as string));
    expect(finsbury?.state?.missingRuns).toBe(1);
    expect(finsbury?.goneAt).toBeNull();

    const twice = await refreshTracker(t.db, trackerId, options());
    expect(twice).toMatchObject({ status: "completed", outcome: "material" });
    const rows = await rollUps(trackerId);
    expect(rows).toHaveLength(2);
    expect(deltaOf(rows[1]).disappeared?.from).toEqual(["Finsbury Grind"]);
    expect(decisionsOf(rows[1]).disappeared).toMatchObject({ verdict: "material", decidedBy: "code" });
    finsbury = (await members(trackerId)).find((m) => m.entityKey.endsWith(ID["Finsbury Grind"] as string));
    expect(finsbury?.goneAt).not.toBeNull();
  });
});

describe("maps.search's failures and refusals", () => {
  it("an upstream error is the typed envelope error; the refresh fails with it and keeps the last good state", async () => {
    const trackerId = await searchTracker();
    places.setSearchStatus(503);
    const failed = await refreshTracker(t.db, trackerId, options());
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatchObject({ code: "HTTP_ERROR", retryable: true });
    expect(failed.error?.message).toMatch(/^Google Maps answered 503 INTERNAL/);
    expect(await members(trackerId)).toHaveLength(4);
    expect(await rollUps(trackerId)).toHaveLength(1);

    places.setSearchStatus(429, { error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "Quota exceeded." } });
    const limited = await executeCapability("maps.search", { query: WORDS }, { config: config() });
    expect(limited).toMatchObject({ status: "failed", error: { code: "RATE_LIMITED", retryable: true } });
    places.setSearchStatus(null);

    const badKey = await executeCapability("maps.search", { query: WORDS }, { config: config("wrong-key") });
    expect(badKey.error).toMatchObject({ code: "UNAUTHORIZED", retryable: false });
    expect(badKey.error?.message).toMatch(/Check GOOGLE_MAPS_API_KEY/);
    const noKey = await executeCapability("maps.search", { query: WORDS }, { config: config(null) });
    expect(noKey.error).toMatchObject({ code: "NOT_CONFIGURED" });
    expect(noKey.error?.message).toMatch(/set GOOGLE_MAPS_API_KEY/);
  });

  it("the search's words are refused in words: a radius too large, a radius without a point, nothing to look for", async () => {
    expect(() => parseCapabilityInput("maps.search", { query: "coffee within 80 km of 51.52,-0.08" })).toThrow(
      "Invalid input for maps.search: query: A radius of 80 km is too large: Google Maps searches at most 50 km around a point.",
    );
    expect(() => parseCapabilityInput("maps.search", { query: "coffee within 2 km" })).toThrow(
      /"within 2 km" needs a point to search around: add "near <latitude>,<longitude>"/,
    );
    const envelope = await executeCapability("maps.search", { query: "near 51.52,-0.08" }, { config: config() });
    expect(envelope.error?.code).toBe("INVALID_INPUT");
    expect(envelope.error?.message).toMatch(/Say what to look for as well as where/);
    // Nothing reached the fake.
    expect(places.requests).toHaveLength(0);
    await expect(
      createActiveTracker(t.db, {
        capability: "maps.search",
        capabilityInput: { query: "coffee near 95.5,-0.08" },
        definition: searchDefinition(),
        userId,
      }),
    ).rejects.toThrow(/95\.5 is not a latitude/);
  });
});

describe("setup binds a search phrase to maps.search", () => {
  it("rules mode finds the search in the message, reads it and drafts the places as a set", async () => {
    const session = await createSetupSession(t.db, { userId });
    const turn = await setupTurn(t.db, {
      userId,
      sessionId: session.id,
      text: `Is anyone new competing with us? Watch ${WORDS}.`,
      config: config(),
      model: null,
    });
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.sample).toMatchObject({
      capability: "maps.search",
      input: { query: "coffee", center: LONDON_CENTER, radiusMeters: 2000, maxResults: 20 },
    });
    const definition = state.draft?.definition;
    expect(definition?.fields.map((f) => [f.name, f.type, f.extractor])).toEqual([
      ["name", "string", { kind: "json_pointer", pointer: "/name" }],
      ["rating", "number", { kind: "json_pointer", pointer: "/rating" }],
      ["review_count", "integer", { kind: "json_pointer", pointer: "/reviewCount" }],
      ["business_status", "string", { kind: "json_pointer", pointer: "/businessStatus" }],
      ["price_level", "string", { kind: "json_pointer", pointer: "/priceLevel" }],
      ["address", "string", { kind: "json_pointer", pointer: "/address" }],
      ["distance_meters", "integer", { kind: "json_pointer", pointer: "/distanceMeters" }],
    ]);
    expect(definition?.identityRule).toEqual({ kind: "input" });
    expect(definition?.set).toEqual({
      missingAfter: 2,
      maxEntities: 200,
      rules: [{ kind: "appeared" }, { kind: "disappeared" }],
    });
    expect(definition?.materiality).toMatchObject({
      rating: { kind: "numeric", absolute: 0.2 },
      business_status: { kind: "any_change" },
      distance_meters: { kind: "ignore" },
    });
    expect(parseDefinition(definition).ok).toBe(true);
    const said = turn.replies.map((r) => r.text).join(" ");
    expect(said).toContain("I watch the Google Maps search's 4 places as a set");
    const summary = (await listTrackerSummaries(t.db, { userId })).find((s) => s.id === state.tracker?.id);
    expect(summary).toMatchObject({
      capability: "maps.search",
      target: 'Google Maps search "coffee" within 2 km of 51.52,-0.08',
    });
  });

  it("a search the parser refuses is said in the chat, and nothing is created", async () => {
    const session = await createSetupSession(t.db, { userId });
    const turn = await setupTurn(t.db, {
      userId,
      sessionId: session.id,
      text: "Any new coffee within 80 km of 51.52,-0.08?",
      config: config(),
      model: null,
    });
    expect(turn.replies.map((r) => r.text).join(" ")).toMatch(/A radius of 80 km is too large/);
    expect((await getSetupState(t.db, { userId, sessionId: session.id })).tracker).toBeNull();
  });
});

import fs from "node:fs";
import { createServer } from "node:net";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { appRouter, createCaller } from "@/server/api/root";
import type { TSessionUser } from "@/server/api/session-user";
import { resetEnvForTests } from "@/server/env";
import { AppError } from "@/server/errors";
import { searchPlaces } from "@/server/settings/search-places";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * Settings (docs/trackers.md, "Settings and System"): the place search against a local Open-Meteo geocoding fixture (GEOCODING_BASE_URL),
 * its failures as clear errors, and invalid settings answered with the field they are about.
 */

const LISBON = JSON.parse(fs.readFileSync("tests/fixtures/open-meteo/geocoding-lisbon.json", "utf8"));
const EMPTY = JSON.parse(fs.readFileSync("tests/fixtures/open-meteo/geocoding-empty.json", "utf8"));

let t: TTestDb;
let me: TSessionUser;
let site: TFixtureSite;

beforeAll(async () => {
  t = await createTestDb();
  me = await ensureLocalUser(t.db);
  site = await startFixtureSite();
  process.env.GEOCODING_BASE_URL = site.url;
  process.env.FETCH_TIMEOUT_MS = "1000";
  resetEnvForTests();
});
afterAll(async () => {
  delete process.env.GEOCODING_BASE_URL;
  delete process.env.FETCH_TIMEOUT_MS;
  resetEnvForTests();
  await site?.close();
  await t?.close();
});
beforeEach(() => site.reset());

const caller = () => createCaller(testTrpcContext(t.db, me));

/** The tRPC endpoint over HTTP, so the answer is shaped by the real error formatter. */
async function postTrpc(path: string, input: unknown) {
  const res = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: new Request(`http://localhost/api/trpc/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ json: input }),
    }),
    router: appRouter,
    createContext: () => testTrpcContext(t.db, me),
  });
  const body = (await res.json()) as {
    error?: { json: { message: string; data: { appCode: string; fieldErrors?: Record<string, string> } } };
  };
  return { status: res.status, error: body.error?.json };
}

/** A query over HTTP (GET, as the client sends queries). */
function getTrpc(path: string, input: unknown): Promise<Response> {
  const query = encodeURIComponent(JSON.stringify({ json: input }));
  return Promise.resolve(
    fetchRequestHandler({
      endpoint: "/api/trpc",
      req: new Request(`http://localhost/api/trpc/${path}?input=${query}`),
      router: appRouter,
      createContext: () => testTrpcContext(t.db, me),
    }),
  );
}

const settings = (over: Record<string, unknown> = {}) => ({
  locationName: null,
  latitude: null,
  longitude: null,
  timezone: null,
  calendarUrl: null,
  memory: "",
  ...over,
});

async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("settings.searchPlaces", () => {
  it("asks the geocoder for five English results and returns places with labels, coordinates and time zones", async () => {
    site.setJson("/v1/search?name=Lisbon&count=5&language=en&format=json", LISBON);
    const result = await caller().settings.searchPlaces({ query: "  Lisbon " });

    expect(result.query).toBe("Lisbon");
    expect(site.requests.map((r) => r.path)).toEqual(["/v1/search?name=Lisbon&count=5&language=en&format=json"]);
    expect(result.places).toHaveLength(5);
    expect(result.places[0]).toEqual({
      id: "2267057",
      name: "Lisbon",
      label: "Lisbon, Portugal",
      latitude: 38.71667,
      longitude: -9.13333,
      timezone: "Europe/Lisbon",
      country: "Portugal",
      region: "Lisbon",
    });
    expect(result.places.map((p) => p.label)).toEqual([
      "Lisbon, Portugal",
      "Lisbon, Indiana, United States",
      "Lisbon, New York, United States",
      "Lisbon, Maine, United States",
      "Lisbon, Ohio, United States",
    ]);
  });

  it("answers no places when the geocoder finds none (its answer has no results key)", async () => {
    site.setJson("/v1/search", EMPTY);
    await expect(caller().settings.searchPlaces({ query: "Qwxzv" })).resolves.toEqual({ query: "Qwxzv", places: [] });
    expect(site.requests[0]?.path).toContain("name=Qwxzv");
  });

  it("keeps the good entries of an answer and tells same-named places in one region apart", async () => {
    const spring = (id: number, admin2: string, latitude: number) => ({
      id,
      name: "Springfield",
      latitude,
      longitude: -89.6,
      country: "United States",
      admin1: "Illinois",
      admin2,
    });
    site.setJson("/v1/search", {
      results: [spring(1, "Sangamon", 39.8), { id: 2, name: "Broken" }, spring(3, "Menard", 40.1)],
    });
    const { places } = await caller().settings.searchPlaces({ query: "Springfield" });
    expect(places.map((p) => p.label)).toEqual([
      "Springfield, Illinois, United States",
      "Springfield, Illinois, United States (Menard)",
    ]);
    expect(places[0]?.timezone).toBeNull();
  });

  it("says plainly that the geocoder is unreachable when nothing listens at GEOCODING_BASE_URL", async () => {
    const error = await searchPlaces(
      { query: "Lisbon" },
      { baseUrl: `http://127.0.0.1:${await refusedPort()}`, timeoutMs: 1000 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "UPSTREAM_FAILED" });
    expect((error as AppError).message).toMatch(/could not be reached.*enter the coordinates by hand/);
  });

  it("reports an unreachable geocoder to the client as 502 with that message", async () => {
    process.env.GEOCODING_BASE_URL = `http://127.0.0.1:${await refusedPort()}`;
    resetEnvForTests();
    try {
      const res = await getTrpc("settings.searchPlaces", { query: "Lisbon" });
      expect(res.status).toBe(502);
      const body = (await res.json()) as { error: { json: { message: string; data: { appCode: string } } } };
      expect(body.error.json.data.appCode).toBe("UPSTREAM_FAILED");
      expect(body.error.json.message).toMatch(
        /^Place search is unavailable: the geocoding service could not be reached/,
      );
    } finally {
      process.env.GEOCODING_BASE_URL = site.url;
      resetEnvForTests();
    }
  });

  it("reports an error status, a slow answer and a non-JSON answer as upstream errors", async () => {
    site.setPage("/v1/search", { status: 503, body: "down" });
    await expect(caller().settings.searchPlaces({ query: "Lisbon" })).rejects.toMatchObject({
      code: "BAD_GATEWAY",
      message: expect.stringContaining("answered HTTP 503"),
    });

    site.setJson("/v1/search", LISBON, { delayMs: 3000 });
    await expect(caller().settings.searchPlaces({ query: "Lisbon" })).rejects.toMatchObject({
      code: "GATEWAY_TIMEOUT",
      message: expect.stringContaining("did not answer in time"),
    });

    site.setPage("/v1/search", { body: "<html>maintenance</html>" });
    await expect(caller().settings.searchPlaces({ query: "Lisbon" })).rejects.toMatchObject({
      code: "BAD_GATEWAY",
      message: expect.stringContaining("unreadable answer"),
    });
  });

  it("refuses a one-letter query with a field error and never calls the geocoder", async () => {
    const res = await getTrpc("settings.searchPlaces", { query: "L" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { json: { data: { fieldErrors: Record<string, string> } } } };
    expect(body.error.json.data.fieldErrors).toEqual({ query: "Type at least 2 letters of the place name." });
    expect(site.requests).toHaveLength(0);
  });
});

describe("settings.updateFeed field errors", () => {
  it("latitude 200 is a 400 that names the latitude field, and nothing is saved", async () => {
    await caller().settings.updateFeed(settings({ locationName: "Lisbon, Portugal", latitude: 38.7, longitude: -9.1 }));

    const { status, error } = await postTrpc("settings.updateFeed", settings({ latitude: 200, longitude: 10 }));
    expect(status).toBe(400);
    expect(error?.data.appCode).toBe("BAD_REQUEST");
    expect(error?.message).toBe("Latitude must be between -90 and 90.");
    expect(error?.data.fieldErrors).toEqual({ latitude: "Latitude must be between -90 and 90." });

    const saved = await caller().settings.feed();
    expect(saved).toMatchObject({ locationName: "Lisbon, Portugal", latitude: 38.7, longitude: -9.1 });
  });

  it("names every bad field: a coordinate without its pair, an unknown time zone and a non-http calendar", async () => {
    const { status, error } = await postTrpc(
      "settings.updateFeed",
      settings({ latitude: 10, timezone: "Mars/Olympus", calendarUrl: "ftp://x.example/cal.ics" }),
    );
    expect(status).toBe(400);
    expect(error?.data.fieldErrors).toEqual({
      longitude: "Longitude is needed with a latitude.",
      timezone: "Time zone must be an IANA name such as Europe/London.",
      calendarUrl: "Calendar URL must start with http:// or https://",
    });
    expect(error?.message).toMatch(/\(and 2 more fields to fix\)$/);
  });

  it("stores a picked place: its label, coordinates and time zone", async () => {
    site.setJson("/v1/search", LISBON);
    const [place] = (await caller().settings.searchPlaces({ query: "Lisbon" })).places;
    if (!place) throw new Error("no place");
    await caller().settings.updateFeed(
      settings({
        locationName: place.label,
        latitude: place.latitude,
        longitude: place.longitude,
        timezone: place.timezone,
      }),
    );
    expect(await caller().settings.feed()).toMatchObject({
      locationName: "Lisbon, Portugal",
      latitude: 38.71667,
      longitude: -9.13333,
      timezone: "Europe/Lisbon",
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createApiToken, revokeApiToken } from "@/server/api-tokens";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * The public API, curl-style: real Request objects through the same handlers the /api/v1 routes use,
 * against embedded PGlite and the local fixture site (rules mode).
 */
const page = (price: string) =>
  `<!doctype html><html><head><title>Shop</title></head><body><main><p>Price <span id="price">${price}</span></p></main></body></html>`;
const definition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

let db: TTestDb;
let site: TFixtureSite;
let token: string;
let otherToken: string;

beforeAll(async () => {
  db = await createTestDb();
  site = await startFixtureSite();
  const local = await ensureLocalUser(db.db);
  token = (await createApiToken(db.db, { userId: local.id, name: "ci" })).token;
  const other = await db.db.user.create({ data: { name: "Someone else", email: "other@example.test" } });
  otherToken = (await createApiToken(db.db, { userId: other.id, name: "theirs" })).token;
});
afterAll(async () => {
  await site?.close();
  await db?.close();
});

type TRoute =
  | "list"
  | "create"
  | "get"
  | "refresh"
  | "timeline"
  | "state"
  | "runs"
  | "versions"
  | "schedule"
  | "status";
const METHODS: Partial<Record<TRoute, string>> = { create: "POST", refresh: "POST", schedule: "PUT", status: "PUT" };

/** `curl -X METHOD -H "Authorization: Bearer …" URL -d BODY` */
async function call(
  route: TRoute,
  opts: {
    id?: string;
    auth?: string | null;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    query?: string;
    method?: string;
  } = {},
) {
  const auth = opts.auth === undefined ? token : opts.auth;
  const path = opts.id ? `/api/v1/trackers/${opts.id}${route === "get" ? "" : `/${route}`}` : "/api/v1/trackers";
  const method = opts.method ?? METHODS[route] ?? "GET";
  const request = new Request(`http://app${path}${opts.query ?? ""}`, {
    method,
    headers: {
      ...(auth ? { authorization: `Bearer ${auth}` } : {}),
      "content-type": "application/json",
      ...opts.headers,
    },
    ...(method !== "GET" ? { body: opts.rawBody ?? (opts.body === undefined ? "" : JSON.stringify(opts.body)) } : {}),
  });
  const response = await handleRestRequest(request, {
    db: db.db,
    refreshSeams: {
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
    },
  });
  return { status: response.status, body: await response.json() };
}

const createBody = (path: string) => ({
  decision: "Is the shop cutting its price?",
  capability: "web.scrape",
  capabilityInput: { url: site.urlFor(path) },
  definition,
  scheduleMinutes: 30,
});

describe("public API", () => {
  it("create → refresh → timeline → state round trip", async () => {
    site.setPage("/api-shop", { body: page("100") });
    const created = await call("create", { body: createBody("/api-shop") });
    expect(created.status).toBe(201);
    expect(created.body.tracker).toMatchObject({ status: "active", lockedVersion: 1, scheduleMinutes: 30 });
    expect(created.body.definition.fields.map((f: { name: string }) => f.name)).toContain("price");
    const id = created.body.tracker.id as string;

    const list = await call("list");
    expect(list.status).toBe(200);
    expect(list.body.trackers.map((t: { id: string }) => t.id)).toContain(id);

    const baseline = await call("refresh", { id });
    expect(baseline.status).toBe(201);
    expect(baseline.body.run).toMatchObject({ status: "completed", outcome: "baseline" });

    site.setPage("/api-shop", { body: page("80") });
    const material = await call("refresh", { id });
    expect(material.body.run).toMatchObject({
      status: "completed",
      outcome: "material",
      summary: "material: price 100→80",
    });

    const timeline = await call("timeline", { id });
    expect(timeline.status).toBe(200);
    expect(timeline.body.items.map((e: { materiality: string }) => e.materiality)).toEqual(["material", "baseline"]);
    expect(timeline.body.items[0].delta).toEqual({ price: { from: 100, to: 80 } });
    expect(timeline.body.items[0].decisions.price).toMatchObject({ decidedBy: "code", verdict: "material" });

    // Paging with a cursor and a time window.
    const first = await call("timeline", { id, query: "?limit=1" });
    expect(first.body.items).toHaveLength(1);
    const second = await call("timeline", {
      id,
      query: `?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    });
    expect(second.body.items[0].materiality).toBe("baseline");
    expect(second.body.nextCursor).toBeNull();
    const future = await call("timeline", { id, query: "?from=2100-01-01T00:00:00Z" });
    expect(future.body.items).toEqual([]);

    const state = await call("state", { id });
    expect(state.body.state.fields).toMatchObject({ price: 80 });

    const one = await call("get", { id });
    expect(one.body.tracker).toMatchObject({ id, lastMaterialAt: expect.any(String) });
  });

  it("the same Idempotency-Key twice returns the same run, and does the work once", async () => {
    site.setPage("/api-idem", { body: page("5") });
    const id = (await call("create", { body: createBody("/api-idem") })).body.tracker.id;
    const a = await call("refresh", { id, headers: { "idempotency-key": "key-1" } });
    const hits = site.hits("/api-idem");
    const b = await call("refresh", { id, headers: { "idempotency-key": "key-1" } });
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.body.run.runId).toBe(a.body.run.runId);
    expect(b.body.run.replayed).toBe(true);
    expect(site.hits("/api-idem")).toBe(hits);
    expect(await db.db.refreshRun.count({ where: { trackerId: id } })).toBe(1);
  });

  it("another user's token gets 404 for someone else's tracker; no token or a revoked one gets 401", async () => {
    site.setPage("/api-mine", { body: page("1") });
    const id = (await call("create", { body: createBody("/api-mine") })).body.tracker.id;
    for (const route of ["get", "refresh", "timeline", "state"] as const) {
      const res = await call(route, { id, auth: otherToken });
      expect(res.status, route).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    expect((await call("list", { auth: otherToken })).body.trackers).toEqual([]);
    expect(await db.db.refreshRun.count({ where: { trackerId: id } })).toBe(0);

    const none = await call("list", { auth: null });
    expect(none.status).toBe(401);
    expect(none.body.error.message).toMatch(/Authorization: Bearer/);
    expect((await call("list", { auth: "bw_wrong" })).status).toBe(401);

    const local = await ensureLocalUser(db.db);
    const temp = await createApiToken(db.db, { userId: local.id, name: "temp" });
    expect((await call("list", { auth: temp.token })).status).toBe(200);
    await revokeApiToken(db.db, { userId: local.id, tokenId: temp.apiToken.id });
    expect((await call("list", { auth: temp.token })).status).toBe(401);
    // Only the hash is stored.
    const row = await db.db.apiToken.findUniqueOrThrow({ where: { id: temp.apiToken.id } });
    expect(JSON.stringify(row)).not.toContain(temp.token);
  });

  it("clear 400s for bad requests", async () => {
    const bad = async (body: unknown, pattern: RegExp, rawBody?: string) => {
      const res = await call("create", rawBody !== undefined ? { rawBody } : { body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe("BAD_REQUEST");
      expect(res.body.error.message).toMatch(pattern);
    };
    await bad(undefined, /not valid JSON/, "{nope");
    await bad([1], /JSON object/);
    await bad({ decision: "x" }, /Missing field\(s\): capability, capabilityInput, definition/);
    await bad({ ...createBody("/x"), definition: { fields: [] } }, /definition is not valid/);
    await bad({ ...createBody("/x"), capability: "nope.verb" }, /nope\.verb|capabilit/i);
    await bad({ ...createBody("/x"), capabilityInput: { url: "not a url" } }, /url/i);
    const before = await db.db.tracker.count();
    await bad({ ...createBody("/x"), decision: "" }, /decision/i);
    expect(await db.db.tracker.count()).toBe(before);

    site.setPage("/api-q", { body: page("1") });
    const id = (await call("create", { body: createBody("/api-q") })).body.tracker.id;
    const badDate = await call("timeline", { id, query: "?from=yesterday" });
    expect(badDate.status).toBe(400);
    expect(badDate.body.error.message).toMatch(/"from" must be an ISO 8601 date/);
    // An impossible calendar day is refused, not rolled over into March.
    const feb31 = await call("timeline", { id, query: "?from=2026-02-31" });
    expect(feb31.status).toBe(400);
    expect(feb31.body.error.message).toMatch(/"from" is not a calendar date: 2026-02-31/);
    const badCursor = await call("timeline", { id, query: "?cursor=garbage" });
    expect(badCursor.status).toBe(400);
  });

  it("runs, versions, schedule and status: what the UI can do, the API can do", async () => {
    site.setPage("/api-more", { body: page("7") });
    const id = (await call("create", { body: createBody("/api-more") })).body.tracker.id as string;
    await call("refresh", { id });

    const runs = await call("runs", { id, query: "?limit=5" });
    expect(runs.status).toBe(200);
    expect(runs.body.runs).toHaveLength(1);
    expect(runs.body.runs[0]).toMatchObject({ trigger: "api", status: "completed", outcome: "baseline" });

    const versions = await call("versions", { id });
    expect(versions.body.versions.map((v: { version: number; inForce: boolean }) => [v.version, v.inForce])).toEqual([
      [1, true],
    ]);

    const hourly = await call("schedule", { id, body: { scheduleMinutes: 60 } });
    expect(hourly.status).toBe(200);
    expect(hourly.body.tracker.scheduleMinutes).toBe(60);
    const odd = await call("schedule", { id, body: { scheduleMinutes: 7 } });
    expect(odd.status).toBe(400);
    expect(odd.body.error.message).toMatch(/scheduleMinutes: Choose one of 15, 30/);

    const paused = await call("status", { id, body: { status: "paused" } });
    expect(paused.body.tracker).toMatchObject({ status: "paused", nextRunAt: null });
    const resumed = await call("status", { id, body: { status: "active" } });
    expect(resumed.body.tracker.status).toBe("active");
    expect((await call("status", { id, body: { status: "sleeping" } })).status).toBe(400);
    // Another person's tracker is not found, for writes too, and nothing changes.
    expect((await call("status", { id, auth: otherToken, body: { status: "archived" } })).status).toBe(404);
    expect((await db.db.tracker.findUniqueOrThrow({ where: { id } })).status).toBe("active");
  });

  it("unknown routes are 404, wrong methods 405, oversized bodies 413, NUL characters 400 — all as JSON errors", async () => {
    const unknown = await handleRestRequest(
      new Request("http://app/api/v1/nope", { headers: { authorization: `Bearer ${token}` } }),
      { db: db.db },
    );
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("NOT_FOUND");
    const wrong = await call("list", { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.code).toBe("METHOD_NOT_ALLOWED");

    const before = await db.db.tracker.count();
    const huge = await call("create", { body: { ...createBody("/x"), decision: "x".repeat(1_200_000) } });
    expect(huge.status).toBe(413);
    expect(huge.body.error.message).toMatch(/larger than 1000 KB/);
    const nul = await call("create", { body: { ...createBody("/x"), decision: "a\u0000b" } });
    expect(nul.status).toBe(400);
    expect(nul.body.error.message).toMatch(/NUL/);
    expect(await db.db.tracker.count()).toBe(before);

    // A path parameter that is not valid percent-encoding is the caller's mistake, not a server error.
    const garbled = await handleRestRequest(
      new Request("http://app/api/v1/trackers/%E0%A4%A", { headers: { authorization: `Bearer ${token}` } }),
      { db: db.db },
    );
    expect(garbled.status).toBe(400);
    expect((await garbled.json()).error.message).toMatch(/percent-encod/);
  });
});

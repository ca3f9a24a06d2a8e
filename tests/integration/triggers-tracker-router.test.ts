import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createCaller } from "@/server/api/root";
import type { TSessionUser } from "@/server/api/session-user";
import { resetEnvForTests } from "@/server/env";
import { lockDefinition, saveDraftDefinition } from "@/server/trackers";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/** The tracker tRPC router the tracker page uses, end to end on PGlite and the fixture site (rules mode). */
const page = (price: string) => `<main><p>Price <span id="price">${price}</span></p></main>`;
const definition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

let db: TTestDb;
let site: TFixtureSite;
let me: TSessionUser;
let stranger: TSessionUser;

const caller = (user: TSessionUser) => createCaller(testTrpcContext(db.db, user));

beforeAll(async () => {
  db = await createTestDb();
  site = await startFixtureSite();
  vi.stubEnv("AI_PROVIDER", "rules");
  vi.stubEnv("FETCH_ALLOW_HOSTS", new URL(site.url).host);
  resetEnvForTests();
  me = await ensureLocalUser(db.db);
  stranger = (await db.db.user.create({ data: { name: "Other" } })) as TSessionUser;
});
afterAll(async () => {
  vi.unstubAllEnvs();
  resetEnvForTests();
  await site?.close();
  await db?.close();
});

describe("tracker router", () => {
  it("refresh → timeline newest first with deltas, series with a point per entry, runs with steps", async () => {
    site.setPage("/r", { body: page("100") });
    const { tracker } = await createActiveTracker(db.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/r") },
      definition,
    });
    const api = caller(me);
    const trackerId = tracker.id;
    expect(await api.tracker.refresh({ trackerId })).toMatchObject({ outcome: "baseline" });
    site.setPage("/r", { body: page("102") });
    expect(await api.tracker.refresh({ trackerId })).toMatchObject({
      outcome: "noise",
      summary: "noise: price 100→102",
    });
    site.setPage("/r", { body: page("80") });
    expect(await api.tracker.refresh({ trackerId })).toMatchObject({ summary: "material: price 100→80" });

    const first = await api.tracker.timeline({ trackerId, limit: 1 });
    expect(first.items[0]).toMatchObject({ materiality: "material", delta: { price: { from: 100, to: 80 } } });
    const second = await api.tracker.timeline({ trackerId, limit: 1, cursor: first.nextCursor });
    expect(second.items[0]?.materiality).toBe("baseline");
    expect(second.nextCursor).toBeNull();

    const series = await api.tracker.series({ trackerId });
    expect(series).toEqual([
      {
        field: "price",
        label: "Price",
        format: { type: "number" },
        points: [
          expect.objectContaining({ value: 100, materiality: "baseline" }),
          expect.objectContaining({ value: 80, materiality: "material" }),
        ],
        // What the source says now, at the last check (here the material change's value).
        now: { at: expect.any(Date), value: 80 },
      },
    ]);
    const runs = await api.tracker.runs({ trackerId });
    expect(runs.map((r) => r.outcome)).toEqual(["material", "noise", "baseline"]);
    expect(runs[0]?.trigger).toBe("manual");
    expect(runs[0]?.steps.map((s) => s.step)).toEqual(expect.arrayContaining(["crawl", "diff", "judge", "append"]));

    const overview = await api.tracker.get({ trackerId });
    expect(overview.state?.fields).toMatchObject({ price: 80 });
    expect(overview.definition?.version).toBe(1);
    expect(overview.definition?.fields.find((f) => f.name === "price")?.rule).toMatch(/price/);
    // Each of the three runs saw new content: three captures kept for replay (docs/replay.md), counted for the page.
    expect(overview.storedHistory).toEqual({ captures: 3, bytes: expect.any(Number) });
    expect(overview.storedHistory.bytes).toBe(
      (await db.db.capture.findMany({ where: { trackerId } })).reduce((n, c) => n + c.data.byteLength, 0),
    );
    const listed = (await api.tracker.list()).find((t) => t.id === trackerId);
    expect(listed?.lastMaterialAt).toBeInstanceOf(Date);
  });

  it("the chart's series ends at what the source says now: a noise move is no point but is the observed value", async () => {
    site.setPage("/n", { body: page("100") });
    const { tracker } = await createActiveTracker(db.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/n") },
      definition,
    });
    const api = caller(me);
    const trackerId = tracker.id;
    const before = await api.tracker.series({ trackerId });
    expect(before).toEqual([]); // nothing recorded yet: no chart
    await api.tracker.refresh({ trackerId });
    site.setPage("/n", { body: page("102") });
    expect(await api.tracker.refresh({ trackerId })).toMatchObject({ outcome: "noise" });
    const [price] = await api.tracker.series({ trackerId });
    expect(price?.points).toEqual([expect.objectContaining({ value: 100, materiality: "baseline" })]);
    expect(price?.now?.value).toBe(102);
    const state = (await api.tracker.get({ trackerId })).state;
    expect(price?.now?.at).toEqual(state?.lastCheckedAt);
    // The definition view says how its values read.
    expect((await api.tracker.get({ trackerId })).definition?.fields[0]?.format).toEqual({ type: "number" });
  });

  it("version history says what changed between versions", async () => {
    site.setPage("/v", { body: page("1") });
    const { tracker } = await createActiveTracker(db.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/v") },
      definition,
    });
    await saveDraftDefinition(db.db, {
      userId: me.id,
      trackerId: tracker.id,
      definition: { ...definition, materiality: { price: { kind: "numeric", relative: 0.1 } } },
    });
    await lockDefinition(db.db, { userId: me.id, trackerId: tracker.id });
    const overview = await caller(me).tracker.get({ trackerId: tracker.id });
    expect(overview.definition?.version).toBe(2);
    expect(overview.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(overview.versions[0]?.changes.join(" ")).toMatch(/rule changed/);
  });

  it("schedule, pause/resume (also in bulk), archive; another user's tracker is NOT_FOUND", async () => {
    site.setPage("/s", { body: page("1") });
    const { tracker } = await createActiveTracker(db.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/s") },
      definition,
    });
    const api = caller(me);
    const trackerId = tracker.id;
    expect((await api.tracker.setSchedule({ trackerId, scheduleMinutes: 1440 })).scheduleMinutes).toBe(1440);
    await expect(api.tracker.setSchedule({ trackerId, scheduleMinutes: 7 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    expect((await api.tracker.setStatus({ trackerId, status: "paused" })).status).toBe("paused");
    const bulk = await api.tracker.setStatusMany({ trackerIds: [trackerId], status: "active" });
    expect(bulk.updated).toEqual([trackerId]);

    const other = caller(stranger);
    for (const call of [
      () => other.tracker.get({ trackerId }),
      () => other.tracker.timeline({ trackerId }),
      () => other.tracker.refresh({ trackerId }),
      () => other.tracker.setStatus({ trackerId, status: "archived" }),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code).toBe("NOT_FOUND");
    }
    expect((await other.tracker.setStatusMany({ trackerIds: [trackerId], status: "paused" })).refused).toHaveLength(1);
    expect((await api.tracker.setStatus({ trackerId, status: "archived" })).status).toBe("archived");
    await expect(api.tracker.refresh({ trackerId })).rejects.toMatchObject({ code: "PRECONDITION_FAILED" });
  });
});

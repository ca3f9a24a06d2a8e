import fs from "node:fs";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import superjson, { type SuperJSONResult } from "superjson";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { TFeed, TFeedItem } from "@/contracts/feed-item";
import { getModel, setModelOverrideForTests, type TLanguageModel } from "@/server/ai";
import { createRequestDefer } from "@/server/api/request-defer";
import { appRouter } from "@/server/api/root";
import { pendingDeferred, settleDeferred } from "@/server/defer";
import { requestEnhancement } from "@/server/enhancement/enhancement-manager";
import { resetEnvForTests } from "@/server/env";
import { feedEvents } from "@/server/feed/feed-events";
import { getFeed } from "@/server/feed/get-feed";
import { Prisma } from "@/server/generated/prisma/client";
import { createLogger } from "@/server/logger";
import { touchLastActive, updateUserSettings } from "@/server/settings/user-settings";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { fixtureModel } from "../helpers/trackers";

const NOW = new Date("2026-11-29T15:00:00Z");
let t: TTestDb;
let model: TModelServer;
let site: TFixtureSite;
let userId: string;
let changeItemId: string;

beforeAll(async () => {
  [t, model, site] = await Promise.all([createTestDb(), startModelServer(), startFixtureSite()]);
  process.env.OPEN_METEO_BASE_URL = site.url;
  process.env.FETCH_ALLOW_HOSTS = `127.0.0.1:${site.port}`;
  resetEnvForTests();
  userId = (await ensureLocalUser(t.db)).id;
  const tracker = await t.db.tracker.create({
    data: {
      userId,
      decision: "Should we match Acme's price?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/acme") },
      status: "active",
    },
  });
  const run = await t.db.refreshRun.create({ data: { trackerId: tracker.id, trigger: "manual", status: "completed" } });
  const entity = await t.db.trackedEntity.create({ data: { trackerId: tracker.id, entityKey: "acme-pro" } });
  const change = await t.db.entityChange.create({
    data: {
      entityId: entity.id,
      trackerId: tracker.id,
      runId: run.id,
      capturedAt: new Date(NOW.getTime() - 3_600_000),
      delta: { price: { from: 49, to: 39 } },
      materiality: "material",
      decisions: {},
      definitionVersion: 1,
    },
  });
  changeItemId = `change:${change.id}`;
  await t.db.tracker.create({
    data: {
      userId,
      decision: "Is the venue still open?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/venue") },
      status: "active",
      consecutiveFailures: 3,
      lastError: "The page answered HTTP 500.",
    },
  });
});

afterAll(async () => {
  delete process.env.OPEN_METEO_BASE_URL;
  delete process.env.FETCH_ALLOW_HOSTS;
  resetEnvForTests();
  await Promise.all([t?.close(), model?.close(), site?.close()]);
});

/** The events on the agenda's day cards (docs/feed.md, "Agenda"), in day and time order. */
const agendaEvents = (feed: TFeed) =>
  feed.items
    .filter((i) => i.type === "calendar-day")
    .flatMap((i) => (i.data.events ?? []) as { title: string; location: string | null }[]);

const enhancementCalls = () => model.requests.filter((r) => r.summary.schemaName === "feed_enhancement").length;

describe("feed: trackers source", () => {
  it("shows a material change card with from → to rows and empty slots, and a failing tracker card", async () => {
    const feed = await getFeed(t.db, userId, { now: NOW, enhance: false });
    const card = feed.items.find((i) => i.id === changeItemId);
    expect(card?.type).toBe("tracker-change");
    const rows = Object.values(card?.ui?.elements ?? {}).filter((e) => e.type === "ChangeRow");
    expect(rows.map((r) => r.props)).toEqual([{ field: "Price", from: "49", to: "39", change: "−20%" }]);
    expect(card?.slots?.why?.content).toBeNull();
    expect(card?.slots?.why?.description).toContain("Should we match Acme's price?");
    const failing = feed.items.find((i) => i.type === "tracker-failing");
    expect(JSON.stringify(failing?.ui)).toContain(
      "“Is the venue still open?” could not be checked 3 times in a row: The page answered HTTP 500.",
    );
    expect(failing?.slots).toBeUndefined();
    expect(feed.errors).toEqual([]);
  });
});

describe("feed: enhancement harness", () => {
  it("rules mode: no model → no call, feed still works", async () => {
    expect(getModel("enhancer")).toBeNull(); // tests run without AI configuration
    const items = (await getFeed(t.db, userId, { now: NOW, enhance: false })).items;
    expect(await requestEnhancement(t.db, userId, items, "", { now: NOW, model: null })).toBe("rules");
  });

  it("skips users inactive for over 2 hours", async () => {
    await touchLastActive(t.db, userId, new Date(NOW.getTime() - 3 * 3_600_000));
    const items = (await getFeed(t.db, userId, { now: NOW, enhance: false })).items;
    const outcome = await requestEnhancement(t.db, userId, items, "", { now: NOW, model: fixtureModel(model.url) });
    expect(outcome).toBe("inactive");
    expect(enhancementCalls()).toBe(0);
  });

  it("one call fills slots (text kept verbatim), drops invalid synthetic UI, notifies, then the hash gate holds", async () => {
    model.setRecordings([
      {
        name: "enhance",
        match: { schemaName: "feed_enhancement" },
        response: {
          json: {
            slotFills: [
              { itemId: changeItemId, slot: "why", text: "<b>Acme</b> undercuts you by 10 <script>alert(1)</script>" },
              { itemId: changeItemId, slot: "unknown-slot", text: "dropped" },
            ],
            syntheticItems: [
              {
                id: "brief",
                type: "briefing",
                uiJson: JSON.stringify({
                  root: "r",
                  elements: { r: { type: "Text", props: { text: "Price war." }, children: [] } },
                }),
              },
              {
                id: "evil",
                type: "briefing",
                uiJson: JSON.stringify({
                  root: "r",
                  elements: { r: { type: "RawHtml", props: { html: "<img>" }, children: [] } },
                }),
              },
            ],
            suppress: [],
            rankingHints: [],
          },
        },
      },
    ]);
    await touchLastActive(t.db, userId, NOW);
    const controller = new AbortController();
    const events = feedEvents(userId, { signal: controller.signal });
    const firstEvent = events.next();

    const items = (await getFeed(t.db, userId, { now: NOW, enhance: false })).items;
    const outcome = await requestEnhancement(t.db, userId, items, "We sell Pro at 49.", {
      now: NOW,
      model: fixtureModel(model.url),
    });
    expect(outcome).toBe("enhanced");
    expect(enhancementCalls()).toBe(1);
    // The model saw slotted items only, with slot descriptions; the failing card (no slots) was not sent.
    const prompt = JSON.stringify(model.requests.at(-1)?.body);
    expect(prompt).toContain(changeItemId);
    expect(prompt).not.toContain("failing:");
    expect((await firstEvent).value).toMatchObject({ userId, reason: "enhanced" });
    controller.abort();

    const feed = await getFeed(t.db, userId, { now: NOW, enhance: false });
    const card = feed.items.find((i) => i.id === changeItemId);
    expect(card?.slots?.why?.content).toBe("<b>Acme</b> undercuts you by 10 <script>alert(1)</script>");
    expect(card?.slots?.next?.content).toBeNull();
    expect(feed.items.filter((i) => i.synthetic).map((i) => i.id)).toEqual(["synthetic:brief"]);

    const row = await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } });
    expect(row.modelCalls).toBe(1);

    // Identical input → hash gate: no second call.
    const again = await requestEnhancement(t.db, userId, items, "We sell Pro at 49.", {
      now: NOW,
      model: fixtureModel(model.url),
    });
    expect(again).toBe("cached");
    expect(enhancementCalls()).toBe(1);
  });

  it("single flight across processes: a live lease held elsewhere means no call here, the hash is left pending", async () => {
    await t.db.feedEnhancement.update({
      where: { userId },
      data: { leaseToken: "other-process", leaseExpiresAt: new Date(NOW.getTime() + 60_000) },
    });
    const items = (await getFeed(t.db, userId, { now: NOW, enhance: false })).items;
    const before = enhancementCalls();
    const outcome = await requestEnhancement(t.db, userId, items, "changed memory", {
      now: NOW,
      model: fixtureModel(model.url),
    });
    expect(outcome).toBe("in_flight");
    expect(enhancementCalls()).toBe(before);
    // The input is left for the holder, in the row, so a holder in any process runs it afterwards.
    const row = await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } });
    expect(row.pendingHash).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(row.pendingInput)).toContain("changed memory");
    // This fake holder never finishes: release it and forget its pending input.
    await t.db.feedEnhancement.update({
      where: { userId },
      data: { leaseToken: null, leaseExpiresAt: null, pendingHash: null, pendingInput: Prisma.DbNull },
    });
  });

  it("debounce: rapid requests collapse into one run (earlier ones are superseded)", async () => {
    const items = (await getFeed(t.db, userId, { now: NOW, enhance: false })).items;
    const before = enhancementCalls();
    const m = fixtureModel(model.url);
    const outcomes = await Promise.all([
      requestEnhancement(t.db, userId, items, "memo 1", { now: NOW, model: m, debounceMs: 30 }),
      requestEnhancement(t.db, userId, items, "memo 2", { now: NOW, model: m, debounceMs: 30 }),
      requestEnhancement(t.db, userId, items, "memo 3", { now: NOW, model: m, debounceMs: 30 }),
    ]);
    expect(outcomes).toEqual(["superseded", "superseded", "enhanced"]);
    expect(enhancementCalls()).toBe(before + 1);
  });

  it("a request built from older inputs yields to a newer one, waiting or already run: one call, the newer input", async () => {
    const items = (await getFeed(t.db, userId, { now: NOW, enhance: false })).items;
    const m = fixtureModel(model.url);
    // A background rebuild read the settings (old memo) before a page load read them after an edit (new memo);
    // the page load's request is accepted first, the slower rebuild's arrives while it waits.
    const readEarlier = performance.now() - 10;
    const readLater = performance.now();
    const before = enhancementCalls();
    const request = (memory: string, inputsReadAt: number) =>
      requestEnhancement(t.db, userId, items, memory, { now: NOW, model: m, debounceMs: 30, inputsReadAt });
    const newer = request("memo after the edit", readLater);
    const stale = request("memo before the edit", readEarlier);
    expect(await Promise.all([newer, stale])).toEqual(["enhanced", "superseded"]);
    // ...and one that arrives after the newer one has run gets nothing run either.
    expect(await request("memo before the edit", readEarlier + 1)).toBe("superseded");
    const sent = model.requests.filter((r) => r.summary.schemaName === "feed_enhancement").slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.summary.lastUser).toContain("memo after the edit");
  });
});

describe("feed: enhancement follow-ups, backoff and the prompt budget (calls counted at the fixture model)", () => {
  const answer = (text: string) => ({
    slotFills: [{ itemId: changeItemId, slot: "why", text }],
    syntheticItems: [],
    suppress: [],
    rankingHints: [],
  });
  const userPrompts = () =>
    model.requests.filter((r) => r.summary.schemaName === "feed_enhancement").map((r) => r.summary.lastUser);

  it("changes that arrive while a call is in flight get one follow-up call, with the newest input", async () => {
    model.setRecordings([
      { name: "slow", match: { schemaName: "feed_enhancement" }, response: { latencyMs: 400, json: answer("Slow.") } },
    ]);
    await touchLastActive(t.db, userId, NOW);
    const items = (await getFeed(t.db, userId, { now: NOW, enhance: false })).items;
    const m = fixtureModel(model.url);
    const before = enhancementCalls();
    const holder = requestEnhancement(t.db, userId, items, "follow-up A", { now: NOW, model: m });
    await vi.waitFor(() => expect(enhancementCalls()).toBe(before + 1));
    // Two changes while A is in flight: both are recorded, the newest wins, neither is dropped.
    expect(await requestEnhancement(t.db, userId, items, "follow-up B", { now: NOW, model: m })).toBe("in_flight");
    expect(await requestEnhancement(t.db, userId, items, "follow-up C", { now: NOW, model: m })).toBe("in_flight");
    expect(await holder).toBe("enhanced");

    expect(enhancementCalls()).toBe(before + 2);
    const sent = userPrompts().slice(-2);
    expect(sent[0]).toContain("follow-up A");
    expect(sent[1]).toContain("follow-up C");
    expect(userPrompts().some((p) => p.includes("follow-up B"))).toBe(false);
    const row = await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } });
    expect(row.pendingHash).toBeNull();
    expect(row.leaseToken).toBeNull();
    // The stored result is for C: asking with C again is a cache hit, no call.
    expect(await requestEnhancement(t.db, userId, items, "follow-up C", { now: NOW, model: m })).toBe("cached");
    // Nothing pending → no follow-up after a plain call either.
    model.setRecordings([{ name: "fast", match: { schemaName: "feed_enhancement" }, response: { json: answer("D") } }]);
    expect(await requestEnhancement(t.db, userId, items, "follow-up D", { now: NOW, model: m })).toBe("enhanced");
    expect(enhancementCalls()).toBe(before + 3);
  });

  it("a failed follow-up backs off; the first call's outcome stands", async () => {
    model.setRecordings([
      {
        name: "slow-ok",
        match: { schemaName: "feed_enhancement" },
        response: { latencyMs: 300, json: answer("E") },
        times: 1,
      },
      {
        name: "broken",
        match: { schemaName: "feed_enhancement" },
        response: { status: 400, error: { message: "no" } },
      },
    ]);
    const items = (await getFeed(t.db, userId, { now: NOW, enhance: false })).items;
    const m = fixtureModel(model.url);
    const before = enhancementCalls();
    const holder = requestEnhancement(t.db, userId, items, "follow-up E", { now: NOW, model: m });
    await vi.waitFor(() => expect(enhancementCalls()).toBe(before + 1));
    expect(await requestEnhancement(t.db, userId, items, "follow-up F", { now: NOW, model: m })).toBe("in_flight");
    expect(await holder).toBe("enhanced");
    expect(enhancementCalls()).toBe(before + 2);
    const row = await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } });
    expect(row).toMatchObject({ failures: 1, retryAfter: new Date(NOW.getTime() + 60_000), leaseToken: null });
    expect(JSON.stringify(row.pendingInput)).toContain("follow-up F"); // kept: F was never enhanced
    // After the backoff a newer input G runs; the stale F is not run after it.
    model.setRecordings([{ name: "ok", match: { schemaName: "feed_enhancement" }, response: { json: answer("G") } }]);
    const later = new Date(NOW.getTime() + 61_000);
    expect(await requestEnhancement(t.db, userId, items, "follow-up G", { now: later, model: m })).toBe("enhanced");
    expect(enhancementCalls()).toBe(before + 3);
    expect(userPrompts().at(-1)).toContain("follow-up G");
    expect(await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } })).toMatchObject({
      pendingHash: null,
      failures: 0,
      retryAfter: null,
    });
  });

  it("failed calls back off 1, 2… minutes for every process (stored in the row); a success resets", async () => {
    model.setRecordings([
      {
        name: "broken",
        match: { schemaName: "feed_enhancement" },
        response: { status: 400, error: { message: "bad request" } },
        times: 2,
      },
      { name: "ok", match: { schemaName: "feed_enhancement" }, response: { json: answer("Back.") } },
    ]);
    const items = (await getFeed(t.db, userId, { now: NOW, enhance: false })).items;
    const m = fixtureModel(model.url);
    const at = (ms: number) => new Date(NOW.getTime() + ms);
    const ask = (ms: number) => requestEnhancement(t.db, userId, items, "backoff memo", { now: at(ms), model: m });
    const row = () => t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } });
    const before = enhancementCalls();

    expect(await ask(0)).toBe("failed");
    expect(enhancementCalls()).toBe(before + 1);
    expect((await row()).failures).toBe(1);
    expect((await row()).retryAfter).toEqual(at(60_000));

    expect(await ask(30_000)).toBe("backoff");
    expect(enhancementCalls()).toBe(before + 1);

    expect(await ask(61_000)).toBe("failed");
    expect(enhancementCalls()).toBe(before + 2);
    expect((await row()).failures).toBe(2);
    expect((await row()).retryAfter).toEqual(at(61_000 + 120_000));

    expect(await ask(61_000 + 119_000)).toBe("backoff");
    expect(enhancementCalls()).toBe(before + 2);

    expect(await ask(61_000 + 121_000)).toBe("enhanced");
    expect(enhancementCalls()).toBe(before + 3);
    expect(await row()).toMatchObject({ failures: 0, retryAfter: null, leaseToken: null });
  });

  it("the prompt budget leaves out whole items, lowest-ranked first; the sent JSON is complete", async () => {
    model.setRecordings([{ name: "ok", match: { schemaName: "feed_enhancement" }, response: { json: answer("B") } }]);
    const mk = (id: string, score: number): TFeedItem => ({
      id,
      sourceId: "test",
      type: "note",
      timestamp: NOW,
      data: { text: `${id} `.repeat(40) },
      score,
      slots: { why: { description: "why it matters", content: null } },
    });
    const items = [mk("budget-low", 0.1), mk("budget-top", 0.9), mk("budget-mid", 0.5)];
    const before = enhancementCalls();
    const outcome = await requestEnhancement(t.db, userId, items, "budget memo", {
      now: NOW,
      model: fixtureModel(model.url),
      maxItemsChars: 1200, // two of these items (~520 characters each) fit, three do not
    });
    expect(outcome).toBe("enhanced");
    expect(enhancementCalls()).toBe(before + 1);
    const prompt = userPrompts().at(-1) ?? "";
    const body = prompt.split('source="feed items">>>\n')[1]?.split("\n<<<END UNTRUSTED DATA")[0] ?? "";
    expect((JSON.parse(body) as { id: string }[]).map((i) => i.id)).toEqual(["budget-top", "budget-mid"]);
    expect(prompt).not.toContain("budget-low");
  });
});

describe("feed: a cached enhancement is held to today's synthetic rules", () => {
  it("a row stored before the checks existed (cycle, javascript: link) loses those cards; the rest stays", async () => {
    const before = await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } });
    const el = (type: string, props: Record<string, string>, children: string[] = []) => ({ type, props, children });
    await t.db.feedEnhancement.update({
      where: { userId },
      data: {
        result: {
          slotFills: { [changeItemId]: { why: "Kept fill." } },
          syntheticItems: [
            {
              id: "synthetic:loop",
              type: "b",
              ui: { root: "a", elements: { a: el("Stack", {}, ["b"]), b: el("Stack", {}, ["a"]) } },
            },
            {
              id: "synthetic:js",
              type: "b",
              ui: { root: "r", elements: { r: el("Link", { href: "javascript:alert(1)", label: "x" }) } },
            },
            { id: "synthetic:ok", type: "b", ui: { root: "r", elements: { r: el("Text", { text: "Fine." }) } } },
          ],
          suppress: [],
          rankingHints: {},
        },
      },
    });
    const feed = await getFeed(t.db, userId, { now: NOW, enhance: false });
    expect(feed.items.filter((i) => i.synthetic).map((i) => i.id)).toEqual(["synthetic:ok"]);
    expect(feed.items.find((i) => i.id === changeItemId)?.slots?.why?.content).toBe("Kept fill.");
    await t.db.feedEnhancement.update({ where: { userId }, data: { result: before.result ?? undefined } });
  });
});

describe("feed: location → weather and calendar against local fixtures", () => {
  it("no saved place → an invitation and no error; a place → Open-Meteo item with slots", async () => {
    site.setJson("/v1/forecast", JSON.parse(fs.readFileSync("tests/fixtures/open-meteo/forecast.json", "utf8")));
    site.setPage("/cal.ics", {
      body: fs.readFileSync("tests/fixtures/open-meteo/calendar.ics", "utf8"),
      contentType: "text/calendar",
    });
    let feed = await getFeed(t.db, userId, { now: NOW, enhance: false });
    // Neither set up: an invitation each, no error.
    expect(feed.items.filter((i) => i.sourceId === "weather").map((i) => i.type)).toEqual(["weather-setup"]);
    expect(site.hits("/v1/forecast")).toBe(0);
    expect(feed.items.filter((i) => i.sourceId === "calendar").map((i) => i.type)).toEqual(["calendar-setup"]);
    expect(feed.errors).toEqual([]);

    await updateUserSettings(t.db, userId, {
      locationName: "London",
      latitude: 51.5,
      longitude: -0.12,
      timezone: "Europe/London",
      calendarUrl: site.urlFor("/cal.ics"),
      memory: "",
    });
    feed = await getFeed(t.db, userId, { now: NOW, enhance: false });
    expect(feed.errors).toEqual([]);
    // The calendar is fetched after the load, into its cache; the first load says it is loading.
    expect(feed.items.filter((i) => i.sourceId === "calendar").map((i) => i.type)).toEqual(["calendar-loading"]);
    await settleDeferred();
    feed = await getFeed(t.db, userId, { now: NOW, enhance: false });
    expect(feed.errors).toEqual([]);
    const weather = feed.items.find((i) => i.type === "weather-current");
    expect(weather?.data).toMatchObject({ place: "London", temperature: 11.3, condition: "rain" });
    expect(Object.keys(weather?.slots ?? {})).toEqual(["insight", "cross-source"]);
    const forecastReq = site.requests.find((r) => r.path.startsWith("/v1/forecast"));
    expect(forecastReq?.path).toContain("latitude=51.5");
    expect(forecastReq?.path).toContain("timezone=Europe%2FLondon");

    // The agenda: one card for today in London, the dinner on it (the event already over is left out); the slots
    // a calendar card declares are the day's.
    const days = feed.items.filter((i) => i.type === "calendar-day");
    expect(days.map((d) => d.id)).toEqual(["agenda:2026-11-29"]);
    const events = agendaEvents(feed);
    expect(events.map((e) => e.title)).toEqual(["Dinner at The Ivy"]);
    expect(events[0]?.location).toBe("The Ivy, West St");
    expect(Object.keys(days[0]?.slots ?? {})).toEqual(["context", "logistics", "weather"]);
  });

  it("a failing weather service and a broken calendar become source errors; trackers still show", async () => {
    site.setPage("/v1/forecast", { status: 503, body: "down" });
    site.setPage("/cal.ics", { body: "<html>not a calendar</html>" });
    await getFeed(t.db, userId, { now: NOW, enhance: false, refreshCalendar: true });
    await settleDeferred();
    const feed = await getFeed(t.db, userId, { now: NOW, enhance: false });
    expect(feed.errors).toEqual(
      expect.arrayContaining([
        { sourceId: "weather", message: "Weather service answered HTTP 503." },
        {
          sourceId: "calendar",
          message:
            // The copy's age is stamped in the person's zone (Europe/London, GMT in November).
            "The calendar URL did not return an iCalendar (.ics) file. Showing the copy from 2026-11-29 15:00 Europe/London.",
        },
      ]),
    );
    expect(feed.items.some((i) => i.id === changeItemId)).toBe(true);
    // The last good copy stays on screen next to the error.
    expect(agendaEvents(feed).map((e) => e.title)).toEqual(["Dinner at The Ivy"]);
  });
});

describe("background work outlives the response (defer)", () => {
  afterAll(() => setModelOverrideForTests("enhancer", undefined));

  it("feed.get through the real tRPC fetch handler answers first; enhancement and calendar refetch finish after", async () => {
    // Relative to the real clock: the router does not take `now`.
    const start = new Date(Date.now() + 3 * 3_600_000);
    const stamp = (d: Date) =>
      d
        .toISOString()
        .replace(/[-:]/g, "")
        .replace(/\.\d{3}/, "");
    site.setPage("/v1/forecast", { status: 503, body: "down" });
    site.setPage("/later.ics", {
      contentType: "text/calendar",
      body: `BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:deferred-dinner\r\nSUMMARY:Deferred dinner\r\nDTSTART:${stamp(start)}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`,
    });
    await updateUserSettings(t.db, userId, {
      locationName: null,
      latitude: null,
      longitude: null,
      timezone: null,
      calendarUrl: site.urlFor("/later.ics"),
      memory: "Deferred-work test notes.",
    });
    model.setRecordings([
      {
        name: "enhance-later",
        match: { schemaName: "feed_enhancement" },
        response: {
          latencyMs: 300,
          json: {
            slotFills: [{ itemId: changeItemId, slot: "why", text: "Filled after the response." }],
            syntheticItems: [],
            suppress: [],
            rankingHints: [],
          },
        },
      },
    ]);
    setModelOverrideForTests("enhancer", fixtureModel(model.url) as TLanguageModel);
    const callsBefore = (await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } })).modelCalls;
    const controller = new AbortController();
    const seen: string[] = [];
    const listening = (async () => {
      const lastEventId = String(Number.MAX_SAFE_INTEGER); // only events from now on
      for await (const e of feedEvents(userId, { signal: controller.signal, lastEventId })) seen.push(e.reason);
    })();

    const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
    const res = await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: new Request("http://127.0.0.1/api/trpc/feed.get"),
      router: appRouter,
      createContext: () => ({
        db: t.db,
        user,
        log: createLogger({}, () => {}),
        requestId: "deferred-test",
        headers: new Headers(),
        defer: createRequestDefer(),
      }),
    });
    const body = (await res.json()) as { result: { data: SuperJSONResult } };
    const feed = superjson.deserialize<TFeed>(body.result.data);

    // The whole response is in hand, and the background work has not finished.
    expect(res.status).toBe(200);
    expect(feed.items.filter((i) => i.sourceId === "calendar").map((i) => i.type)).toEqual(["calendar-loading"]);
    expect(feed.items.find((i) => i.id === changeItemId)?.slots?.why?.content).not.toBe("Filled after the response.");
    expect(pendingDeferred()).toBeGreaterThan(0);
    expect((await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } })).modelCalls).toBe(callsBefore);
    expect(seen).toEqual([]);

    await settleDeferred();
    controller.abort();
    await listening;
    expect(seen.sort()).toEqual(["calendar", "enhanced"]);
    expect((await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } })).modelCalls).toBe(callsBefore + 1);
    const after = await getFeed(t.db, userId, { enhance: false });
    expect(after.items.find((i) => i.id === changeItemId)?.slots?.why?.content).toBe("Filled after the response.");
    expect(agendaEvents(after).map((e) => e.title)).toEqual(["Deferred dinner"]);
  });
});

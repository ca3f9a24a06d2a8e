import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setModelOverrideForTests, type TLanguageModel } from "@/server/ai";
import type { TDefer } from "@/server/defer";
import { settleDeferred } from "@/server/defer";
import { buildHarnessInput, hashHarnessInput } from "@/server/enhancement/build-input";
import type { TEnhanceOutcome } from "@/server/enhancement/enhancement-manager";
import { resetEnvForTests } from "@/server/env";
import { enhanceAfterPass } from "@/server/feed/background";
import { buildFeed } from "@/server/feed/build-feed";
import { feedEvents } from "@/server/feed/feed-events";
import { getFeed } from "@/server/feed/get-feed";
import { getUserSettings, touchLastActive, updateUserSettings } from "@/server/settings/user-settings";
import { handleCronRefresh, refreshTrackerNow, runScheduler } from "@/server/triggers";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * The harness reacts to context changes, not only to page loads (docs/feed.md, "Not only on page loads"; docs/design.md §6): a change
 * recorded by the scheduler enhances the owner's feed in the background — the real @ai-sdk/openai client against
 * the fixture model server, calls counted there — under an injected clock for the 2-hour activity rule.
 */

const SECRET = "background-cron-secret";
const T0 = new Date(Date.now() + 60_000);
let clock = T0;
const at = (ms: number) => new Date(T0.getTime() + ms);

let t: TTestDb;
let model: TModelServer;
let site: TFixtureSite;
let active: { userId: string; trackerId: string };
let inactive: { userId: string; trackerId: string };
const outcomes: [string, TEnhanceOutcome][] = [];
const tasks: Promise<unknown>[] = [];
/** What the cron route's `after()` would run after the answer: collected so the test can wait for it. */
const captureDefer: TDefer = (task) => {
  tasks.push(task());
};
const settle = async () => {
  while (tasks.length) await Promise.all(tasks.splice(0));
};

const page = (price: string) =>
  `<!doctype html><html><body><p>Price <span id="price">${price}</span></p></body></html>`;
const enhancementCalls = () => model.requests.filter((r) => r.summary.schemaName === "feed_enhancement");
const el = (type: string, props: Record<string, unknown>) => ({ type, props, children: [] });
const card = (id: string, element: ReturnType<typeof el>) => ({
  id,
  type: "briefing",
  uiJson: JSON.stringify({ root: "r", elements: { r: element } }),
});
const answer = (brief: string) => ({
  slotFills: [],
  syntheticItems: [
    card("brief", el("Text", { text: brief })),
    card("js-link", el("Link", { href: "javascript:alert(1)", label: "Open" })),
    card("other-host", el("Link", { href: "/\\evil.example", label: "Open" })),
    card("not-allowed", el("Sparkline", { values: [1, 2, 3] })),
  ],
  suppress: [],
  rankingHints: [],
});

async function tracker(userId: string, path: string, decision: string) {
  site.setPage(path, { body: page("10") });
  const { tracker } = await createActiveTracker(t.db, {
    userId,
    decision,
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition: cssPriceDefinition(0.05),
  });
  return { userId, trackerId: tracker.id };
}

/** The page moves to `price` and the tracker is due: the next cron pass records a material change. */
async function change(who: { trackerId: string }, price: string) {
  const row = await t.db.tracker.findUniqueOrThrow({ where: { id: who.trackerId } });
  site.setPage(new URL((row.capabilityInput as { url: string }).url).pathname, { body: page(price) });
  await t.db.tracker.update({ where: { id: who.trackerId }, data: { nextRunAt: new Date(Date.now() - 1000) } });
}

/** The enhancement input hash of the person's feed as it is now: what a fresh enhancement was computed for. */
async function feedHash(userId: string): Promise<string> {
  const settings = await getUserSettings(t.db, userId);
  const { processed } = await buildFeed(t.db, userId, settings, { now: clock, defer: captureDefer });
  return hashHarnessInput(buildHarnessInput(processed, settings.memory));
}

/** Refreshes in rules mode against the local fixture site. */
const rulesMode = () => ({
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
});

const cron = () =>
  handleCronRefresh(
    new Request("http://app/api/cron/refresh", { method: "POST", headers: { authorization: `Bearer ${SECRET}` } }),
    {
      db: t.db,
      secret: SECRET,
      budgetMs: 20_000,
      concurrency: 2,
      refreshOptions: rulesMode(),
      now: () => clock,
      defer: captureDefer,
      onEnhanced: (userId, outcome) => outcomes.push([userId, outcome]),
    },
  );

beforeAll(async () => {
  [t, model, site] = await Promise.all([createTestDb(), startModelServer(), startFixtureSite()]);
  process.env.OPEN_METEO_BASE_URL = site.url;
  process.env.FEED_ENHANCE_DEBOUNCE_MS = "0";
  resetEnvForTests();
  setModelOverrideForTests("enhancer", fixtureModel(model.url) as TLanguageModel);
  const a = (await ensureLocalUser(t.db)).id;
  const b = (await t.db.user.create({ data: { name: "Away", email: "away@example.test" } })).id;
  active = await tracker(a, "/active", "Should we match Acme's price?");
  inactive = await tracker(b, "/inactive", "Is Beta still cheaper?");
  await touchLastActive(t.db, a, at(-10 * 60_000));
  await touchLastActive(t.db, b, at(-(2 * 3_600_000 + 60_000))); // 2 h 1 min before the injected clock
  // The first pass records the baselines: no change, no enhancement.
  expect((await cron()).status).toBe(200);
  await settle();
});

afterAll(async () => {
  setModelOverrideForTests("enhancer", undefined);
  delete process.env.OPEN_METEO_BASE_URL;
  delete process.env.FEED_ENHANCE_DEBOUNCE_MS;
  resetEnvForTests();
  await Promise.all([t?.close(), model?.close(), site?.close()]);
});

describe("background enhancement after a tracker change recorded by cron", () => {
  it("a baseline is not a change: nothing was enhanced", () => {
    expect(outcomes).toEqual([]);
    expect(enhancementCalls()).toHaveLength(0);
  });

  it("one call for the active owner, none for the owner inactive for over 2 hours; open pages hear of it", async () => {
    model.setRecordings([
      { name: "brief", match: { schemaName: "feed_enhancement" }, response: { json: answer("Acme cut its price.") } },
    ]);
    const controller = new AbortController();
    const heard = feedEvents(active.userId, {
      signal: controller.signal,
      lastEventId: String(Number.MAX_SAFE_INTEGER),
    });
    const reasons: string[] = [];
    const listening = (async () => {
      for await (const e of heard) reasons.push(e.reason);
    })();
    await change(active, "20");
    await change(inactive, "20");
    const response = await cron();
    expect(await response.json()).toMatchObject({ claimed: 2, outcomes: { material: 2 } });
    // The answer came first: the enhancement runs after it, in the route's deferred work.
    expect(tasks.length).toBe(1);
    await settle();

    expect(outcomes.sort()).toEqual(
      [
        [active.userId, "enhanced"],
        [inactive.userId, "inactive"],
      ].sort(),
    );
    expect(enhancementCalls()).toHaveLength(1);
    const prompt = enhancementCalls()[0]?.summary.lastUser ?? "";
    expect(prompt).toContain("Should we match Acme's price?");
    expect(prompt).not.toContain("Is Beta still cheaper?");
    expect(await t.db.feedEnhancement.findUnique({ where: { userId: inactive.userId } })).toBeNull();
    await vi.waitFor(() => expect(reasons).toContain("enhanced"));
    controller.abort();
    await listening;

    // The briefing is ready when they open the app; of the model's cards only the safe one is kept.
    const feed = await getFeed(t.db, active.userId, { now: clock, enhance: false });
    expect(feed.enhancement.state).toBe("cached");
    const synthetic = feed.items.filter((i) => i.synthetic);
    expect(synthetic.map((i) => i.id)).toEqual(["synthetic:brief"]);
    expect(JSON.stringify(synthetic)).toContain("Acme cut its price.");
    // The dropped cards leave nothing behind (decision cards carry a Sparkline of their own, so that one is
    // looked for among the synthetic cards).
    expect(JSON.stringify(feed.items)).not.toMatch(/javascript:|evil\.example/);
    expect(JSON.stringify(synthetic)).not.toContain("Sparkline");
  });

  it("changes that arrive while the call is in flight get exactly one follow-up call, with the newest feed", async () => {
    model.setRecordings([
      {
        name: "slow",
        match: { schemaName: "feed_enhancement" },
        response: { latencyMs: 3000, json: answer("Slow brief.") },
      },
    ]);
    outcomes.length = 0;
    const before = enhancementCalls().length;
    await change(active, "30");
    await cron();
    await vi.waitFor(() => expect(enhancementCalls()).toHaveLength(before + 1));
    // Two more changes land while that call is in flight.
    await change(active, "40");
    expect(await (await cron()).json()).toMatchObject({ outcomes: { material: 1 } });
    await change(active, "50");
    expect(await (await cron()).json()).toMatchObject({ outcomes: { material: 1 } });
    expect(enhancementCalls()).toHaveLength(before + 1); // still the first call
    await settle();

    expect(enhancementCalls()).toHaveLength(before + 2);
    expect(outcomes).toEqual([
      [active.userId, "enhanced"],
      [active.userId, "enhanced"],
    ]);
    const [first, followUp] = enhancementCalls()
      .slice(before)
      .map((r) => r.summary.lastUser);
    expect(followUp).not.toBe(first);
    // The follow-up enhanced the feed as it is after the last change.
    const row = await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId: active.userId } });
    expect(row).toMatchObject({ leaseToken: null, pendingHash: null, inputHash: await feedHash(active.userId) });
  });

  it("a failed call backs off: a change before the backoff ends makes no call, one after it does", async () => {
    model.setRecordings([
      {
        name: "broken",
        match: { schemaName: "feed_enhancement" },
        response: { status: 400, error: { message: "no" } },
      },
    ]);
    outcomes.length = 0;
    const before = enhancementCalls().length;
    await change(active, "60");
    await cron();
    await settle();
    expect(outcomes).toEqual([[active.userId, "failed"]]);
    expect(enhancementCalls()).toHaveLength(before + 1);
    const failedAt = clock;

    clock = new Date(failedAt.getTime() + 30_000);
    await change(active, "70");
    await cron();
    await settle();
    expect(outcomes.at(-1)).toEqual([active.userId, "backoff"]);
    expect(enhancementCalls()).toHaveLength(before + 1);

    model.setRecordings([
      { name: "ok", match: { schemaName: "feed_enhancement" }, response: { json: answer("Back.") } },
    ]);
    clock = new Date(failedAt.getTime() + 61_000);
    await change(active, "80");
    await cron();
    await settle();
    expect(outcomes.at(-1)).toEqual([active.userId, "enhanced"]);
    expect(enhancementCalls()).toHaveLength(before + 2);
    expect(await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId: active.userId } })).toMatchObject({
      failures: 0,
      retryAfter: null,
    });
  });
});

describe("background enhancement from refresh-now and the worker", () => {
  it("refresh-now that records a change enhances its owner's feed in the background", async () => {
    const before = enhancementCalls().length;
    await change(active, "90");
    const deferred: Promise<unknown>[] = [];
    const result = await refreshTrackerNow(
      t.db,
      {
        userId: active.userId,
        trackerId: active.trackerId,
        trigger: "manual",
        defer: (task) => void deferred.push(task()),
      },
      rulesMode(),
    );
    expect(result.outcome).toBe("material");
    // The enhancement, and the notification sender woken by the change.
    expect(deferred).toHaveLength(2);
    await Promise.all(deferred);
    expect(enhancementCalls()).toHaveLength(before + 1);
    const row = await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId: active.userId } });
    expect(row.inputHash).toBe(await feedHash(active.userId));
  });

  it("the worker's pass does the same (detached and tracked)", async () => {
    // The worker reads the real clock: keep the owner active by it.
    await touchLastActive(t.db, active.userId, new Date());
    const before = enhancementCalls().length;
    const seen: [string, TEnhanceOutcome][] = [];
    await change(active, "100");
    const stop = new AbortController();
    await runScheduler(t.db, {
      kind: "worker",
      concurrency: 1,
      budgetMs: 20_000,
      pollMs: 10,
      signal: stop.signal,
      refreshOptions: rulesMode(),
      onPass: (summary) => {
        if (summary.claimed > 0) stop.abort();
      },
      onEnhanced: (userId, outcome) => seen.push([userId, outcome]),
    });
    await settleDeferred();
    expect(seen).toEqual([[active.userId, "enhanced"]]);
    expect(enhancementCalls()).toHaveLength(before + 1);
  });
});

describe("the context sweep: forecast changes of active people with a place, every 15 minutes", () => {
  it("enhances when the forecast moved, not when it did not, and not more often than the interval", async () => {
    const forecast = JSON.parse(fs.readFileSync("tests/fixtures/open-meteo/forecast.json", "utf8"));
    site.setJson("/v1/forecast", forecast);
    const placeUser = (await t.db.user.create({ data: { name: "Walker", email: "walker@example.test" } })).id;
    await updateUserSettings(t.db, placeUser, {
      locationName: "London",
      latitude: 51.5,
      longitude: -0.12,
      timezone: "Europe/London",
      calendarUrl: null,
      memory: "",
    });
    // The sweep last ran at T0 (the first cron pass). Start at the next UTC noon an hour or more after it: the
    // briefing card is keyed by the person's day (docs/feed.md, "The briefing card"), so a start just before
    // midnight in London would change the input at the second sweep and the hash gate would rightly not hold.
    const DAY = 86_400_000;
    const start = new Date(Math.ceil((T0.getTime() + 3_600_000 - DAY / 2) / DAY) * DAY + DAY / 2);
    await touchLastActive(t.db, placeUser, new Date(start.getTime() - 5 * 60_000));
    const seen: [string, TEnhanceOutcome][] = [];
    const sweep = (ms: number) =>
      enhanceAfterPass(t.db, {
        changedUserIds: [],
        now: () => new Date(start.getTime() + ms),
        onEnhanced: (userId, outcome) => seen.push([userId, outcome]),
      });
    const calls = () => enhancementCalls().filter((r) => r.summary.lastUser.includes("weather-current")).length;

    await sweep(0);
    expect(seen).toEqual([[placeUser, "enhanced"]]);
    expect(calls()).toBe(1);

    await sweep(60_000); // within the interval: no sweep at all
    expect(seen).toHaveLength(1);

    await sweep(16 * 60_000); // forecast unchanged: the hash gate holds
    expect(seen.at(-1)).toEqual([placeUser, "cached"]);
    expect(calls()).toBe(1);

    site.setJson("/v1/forecast", { ...forecast, current: { ...forecast.current, temperature_2m: 3.5 } });
    await sweep(32 * 60_000);
    expect(seen.at(-1)).toEqual([placeUser, "enhanced"]);
    expect(calls()).toBe(2);

    // Two hours after their last visit they are no longer swept.
    await sweep(2 * 3_600_000);
    expect(seen).toHaveLength(3);
    expect(calls()).toBe(2);
  });
});

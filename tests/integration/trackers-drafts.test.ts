import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { refreshTracker } from "@/server/intelligence/refresh";
import { createSetupSession, getSetupState, linkSetupTracker } from "@/server/intelligence/setup";
import {
  createTracker,
  discardDraft,
  discardStaleDrafts,
  getTrackersList,
  setTrackerStatus,
  setTrackersStatus,
} from "@/server/trackers";
import { createStaleDraftsJob, handleCronRefresh } from "@/server/triggers";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { setupTurn } from "../helpers/setup-turn";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * The trackers list's drafts and bulk archive (docs/trackers.md, "The trackers list"): discarding one's own draft (and only one's own),
 * the automatic discard of drafts untouched for 14 days (injected clock), bulk archive, the list view's current
 * values and last change, and titles that come from the decision, not the raw message.
 */

const DAY = 24 * 60 * 60_000;
const SHOP = (price: string, units: string) => `<!doctype html><html><head><title>Widget — Example Shop</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Widget",
"offers":{"@type":"Offer","price":"${price}","priceCurrency":"USD","availability":"https://schema.org/InStock"}}</script>
</head><body><main><h1>Widget</h1><p id="price">$${price}</p><p id="units">${units} left</p></main></body></html>`;

let t: TTestDb;
let site: TFixtureSite;
let alice: string;
let bob: string;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  alice = (await t.db.user.create({ data: { id: "alice", name: "Alice" } })).id;
  bob = (await t.db.user.create({ data: { id: "bob", name: "Bob" } })).id;
  site.setPage("/widget", { body: SHOP("39.50", "12") });
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

/** A draft the way setup makes one in rules mode: the first message binds the page and drafts. */
async function setupDraft(userId: string, message: string) {
  const session = await createSetupSession(t.db, { userId });
  await setupTurn(t.db, {
    userId,
    sessionId: session.id,
    text: message,
    config: localCapabilityConfig([site.url]),
    model: null,
  });
  const state = await getSetupState(t.db, { userId, sessionId: session.id });
  if (!state.tracker) throw new Error("setup made no draft");
  return { sessionId: session.id, trackerId: state.tracker.id, decision: state.tracker.decision };
}

/** A draft tracker with a setup conversation, both last touched at `at`. */
async function draftTouchedAt(db: TDb, userId: string, at: Date, sessionAt: Date = at) {
  const tracker = await createTracker(db, {
    userId,
    decision: "Is the widget back in stock?",
    capability: "web.scrape",
    capabilityInput: { url: "https://shop.example/widget" },
  });
  const session = await createSetupSession(db, { userId });
  await linkSetupTracker(db, { userId, sessionId: session.id, trackerId: tracker.id });
  await db.tracker.update({ where: { id: tracker.id }, data: { updatedAt: at } });
  await db.setupSession.update({ where: { id: session.id }, data: { updatedAt: sessionAt } });
  return { trackerId: tracker.id, sessionId: session.id };
}

const priceDefinition = {
  fields: [
    { name: "price", type: "money", currency: "USD", description: "The widget's price" },
    { name: "units_left", type: "integer", description: "Units in stock", unit: "units" },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: {
    price: { kind: "numeric", relative: 0.01 },
    units_left: { kind: "numeric", absolute: 5 },
  },
};
const codeDefinition = {
  ...priceDefinition,
  fields: [
    { ...priceDefinition.fields[0], extractor: { kind: "css", selector: "#price" } },
    { ...priceDefinition.fields[1], extractor: { kind: "regex", pattern: "(\\d+) left" } },
  ],
};

describe("titles come from the decision (rules mode)", () => {
  it("a first message with an address becomes a clean sentence; one with only an address, the page's title", async () => {
    const asked = await setupDraft(alice, `is the widget back in stock?? ${site.urlFor("/widget")}`);
    expect(asked.decision).toBe("Is the widget back in stock??");
    const trailing = await setupDraft(alice, `keep an eye on the price at ${site.urlFor("/widget")}. thanks`);
    expect(trailing.decision).toBe("Keep an eye on the price");
    const bare = await setupDraft(alice, site.urlFor("/widget"));
    expect(bare.decision).toBe("Watch Widget — Example Shop");
    for (const d of [asked, trailing, bare]) expect(d.decision).not.toContain("http");
  });
});

describe("discarding a draft", () => {
  it("deletes one's own draft with its setup conversation; another person's is NOT_FOUND and stays", async () => {
    const mine = await setupDraft(alice, `Is the widget cheaper than ours? ${site.urlFor("/widget")}`);
    expect(await t.db.setupMessage.count({ where: { sessionId: mine.sessionId } })).toBeGreaterThan(0);
    expect(await t.db.trackerDefinition.count({ where: { trackerId: mine.trackerId } })).toBe(1);

    const foreign = await rejection(discardDraft(t.db, { userId: bob, trackerId: mine.trackerId }));
    expect(foreign.code).toBe("NOT_FOUND");
    expect(await t.db.tracker.count({ where: { id: mine.trackerId } })).toBe(1);

    expect(await discardDraft(t.db, { userId: alice, trackerId: mine.trackerId })).toEqual({
      trackerId: mine.trackerId,
    });
    expect(await t.db.tracker.count({ where: { id: mine.trackerId } })).toBe(0);
    expect(await t.db.setupSession.count({ where: { id: mine.sessionId } })).toBe(0);
    expect(await t.db.setupMessage.count({ where: { sessionId: mine.sessionId } })).toBe(0);
    expect(await t.db.trackerDefinition.count({ where: { trackerId: mine.trackerId } })).toBe(0);
    // Gone means gone: a second discard is NOT_FOUND.
    expect((await rejection(discardDraft(t.db, { userId: alice, trackerId: mine.trackerId }))).code).toBe("NOT_FOUND");
  });

  it("refuses a tracker that was ever locked (archive it instead)", async () => {
    const { tracker } = await createActiveTracker(t.db, {
      userId: alice,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/widget") },
      definition: priceDefinition,
    });
    const refused = await rejection(discardDraft(t.db, { userId: alice, trackerId: tracker.id }));
    expect(refused.code).toBe("PRECONDITION_FAILED");
    expect(refused.message).toMatch(/archive/i);
    expect(await t.db.tracker.count({ where: { id: tracker.id } })).toBe(1);
  });
});

describe("drafts untouched for 14 days are discarded automatically", () => {
  it("discards only drafts untouched ≥ 14 days by the injected clock; never locked trackers", async () => {
    const now = new Date("2026-06-01T12:00:00Z");
    const ago = (days: number) => new Date(now.getTime() - days * DAY);
    const stale = await draftTouchedAt(t.db, alice, ago(30));
    const exactly = await draftTouchedAt(t.db, bob, ago(14));
    const recent = await draftTouchedAt(t.db, alice, ago(13));
    // The tracker row is old but the conversation was talked to three days ago: touched.
    const talked = await draftTouchedAt(t.db, alice, ago(30), ago(3));
    // Locked trackers (active, paused, archived) untouched for a month stay.
    const locked = [];
    for (const status of ["active", "paused", "archived"] as const) {
      const { tracker } = await createActiveTracker(t.db, {
        userId: alice,
        capability: "web.scrape",
        capabilityInput: { url: site.urlFor("/widget") },
        definition: priceDefinition,
      });
      if (status !== "active") await setTrackerStatus(t.db, { userId: alice, trackerId: tracker.id, status });
      await t.db.tracker.update({ where: { id: tracker.id }, data: { updatedAt: ago(60) } });
      locked.push(tracker.id);
    }
    // Conversations that never bound a page: the old one goes, the recent one stays.
    const idle = await createSetupSession(t.db, { userId: bob });
    await t.db.setupSession.update({ where: { id: idle.id }, data: { updatedAt: ago(20) } });
    const fresh = await createSetupSession(t.db, { userId: bob });
    await t.db.setupSession.update({ where: { id: fresh.id }, data: { updatedAt: ago(1) } });

    const result = await discardStaleDrafts(t.db, { now });
    expect(result).toEqual({ trackers: 2, sessions: 1 });

    const exists = async (id: string) => (await t.db.tracker.count({ where: { id } })) === 1;
    expect(await exists(stale.trackerId)).toBe(false);
    expect(await exists(exactly.trackerId)).toBe(false);
    expect(await t.db.setupSession.count({ where: { id: { in: [stale.sessionId, exactly.sessionId] } } })).toBe(0);
    expect(await exists(recent.trackerId)).toBe(true);
    expect(await exists(talked.trackerId)).toBe(true);
    for (const id of locked) expect(await exists(id)).toBe(true);
    expect(await t.db.setupSession.count({ where: { id: idle.id } })).toBe(0);
    expect(await t.db.setupSession.count({ where: { id: fresh.id } })).toBe(1);

    // A day later the 13-day draft has turned 14.
    expect(await discardStaleDrafts(t.db, { now: new Date(now.getTime() + DAY) })).toMatchObject({ trackers: 1 });
    expect(await exists(recent.trackerId)).toBe(false);
    expect(await exists(talked.trackerId)).toBe(true);
  });

  it("the maintenance job runs at most hourly (injected clock), and the cron route runs it", async () => {
    const t0 = new Date("2026-01-01T00:00:00Z"); // before the other tests' drafts, so only this test's are stale
    const plus = (minutes: number) => ({ now: new Date(t0.getTime() + minutes * 60_000) });
    const job = createStaleDraftsJob();
    const first = await draftTouchedAt(t.db, alice, new Date(t0.getTime() - 15 * DAY));
    expect(await job.maybeRun(t.db, plus(0))).toMatchObject({ trackers: 1 });
    expect(await t.db.tracker.count({ where: { id: first.trackerId } })).toBe(0);
    const second = await draftTouchedAt(t.db, alice, new Date(t0.getTime() - 15 * DAY));
    expect(await job.maybeRun(t.db, plus(30))).toBeNull();
    expect(await t.db.tracker.count({ where: { id: second.trackerId } })).toBe(1);
    expect(await job.maybeRun(t.db, plus(60))).toMatchObject({ trackers: 1 });
    expect(await t.db.tracker.count({ where: { id: second.trackerId } })).toBe(0);

    // The cron route's maintenance hook, on the real clock.
    const old = await draftTouchedAt(t.db, bob, new Date(Date.now() - 20 * DAY));
    const kept = await draftTouchedAt(t.db, bob, new Date(Date.now() - 2 * DAY));
    const response = await handleCronRefresh(
      new Request("http://app/api/cron/refresh", { headers: { authorization: "Bearer s" } }),
      { db: t.db, secret: "s", budgetMs: 1000, concurrency: 1 },
    );
    expect(response.status).toBe(200);
    expect(await t.db.tracker.count({ where: { id: old.trackerId } })).toBe(0);
    expect(await t.db.tracker.count({ where: { id: kept.trackerId } })).toBe(1);
  });
});

describe("bulk archive", () => {
  it("archives the selected trackers one by one; another person's id is refused like a missing one", async () => {
    const make = async (userId: string) =>
      (
        await createActiveTracker(t.db, {
          userId,
          capability: "web.scrape",
          capabilityInput: { url: site.urlFor("/widget") },
          definition: priceDefinition,
        })
      ).tracker.id;
    const [a, b, theirs] = [await make(alice), await make(alice), await make(bob)];
    await setTrackerStatus(t.db, { userId: alice, trackerId: b, status: "paused" });
    const result = await setTrackersStatus(t.db, { userId: alice, trackerIds: [a, b, theirs], status: "archived" });
    expect(result.updated).toEqual([a, b]);
    expect(result.refused).toEqual([{ trackerId: theirs, message: "Tracker not found." }]);
    const statuses = await t.db.tracker.findMany({
      where: { id: { in: [a, b, theirs] } },
      select: { id: true, status: true },
    });
    expect(Object.fromEntries(statuses.map((s) => [s.id, s.status]))).toEqual({
      [a]: "archived",
      [b]: "archived",
      [theirs]: "active",
    });
  });
});

describe("the list view", () => {
  it("lists drafts apart and each tracker with its current values and last material change, formatted", async () => {
    const carol = (await t.db.user.create({ data: { id: "carol", name: "Carol" } })).id;
    site.setPage("/list-widget", { body: SHOP("39.50", "1200") });
    const { tracker } = await createActiveTracker(t.db, {
      userId: carol,
      decision: "Is the widget getting cheaper?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/list-widget") },
      definition: codeDefinition,
    });
    const options = {
      trigger: "manual" as const,
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url]),
    };
    await refreshTracker(t.db, tracker.id, options);
    const draft = await setupDraft(carol, `Is the gadget in stock? ${site.urlFor("/widget")}`);

    const before = await getTrackersList(t.db, { userId: carol });
    expect(before.drafts.map((d) => [d.id, d.decision, d.setupSessionId])).toEqual([
      [draft.trackerId, "Is the gadget in stock?", draft.sessionId],
    ]);
    expect(before.drafts[0]?.discardAfter.getTime()).toBe((before.drafts[0]?.touchedAt.getTime() ?? 0) + 14 * DAY);
    expect(before.trackers.map((x) => x.id)).toEqual([tracker.id]);
    expect(before.trackers[0]?.values).toEqual([
      { name: "price", label: "Price", text: "$39.50" },
      { name: "units_left", label: "Units left", text: "1,200 units" },
    ]);
    expect(before.trackers[0]?.lastChange).toBeNull(); // the baseline is not a change

    // The price moves materially; the stock moves by 2 (noise under its 5-unit rule) in the same refresh.
    site.setPage("/list-widget", { body: SHOP("35.00", "1198") });
    await refreshTracker(t.db, tracker.id, options);
    const after = await getTrackersList(t.db, { userId: carol });
    const item = after.trackers[0];
    expect(item?.values[0]).toEqual({ name: "price", label: "Price", text: "$35.00" });
    // Only what made the change material is stated, not the noise recorded beside it.
    expect(item?.lastChange?.fields).toEqual([{ name: "price", label: "Price", text: "$39.50 → $35.00 (−11%)" }]);
    expect(item?.lastMaterialAt?.getTime()).toBe(item?.lastChange?.capturedAt.getTime());

    // Someone else sees none of it.
    const other = await getTrackersList(t.db, { userId: bob });
    expect(JSON.stringify(other)).not.toContain(tracker.id);
    expect(JSON.stringify(other)).not.toContain(draft.trackerId);
  });
});

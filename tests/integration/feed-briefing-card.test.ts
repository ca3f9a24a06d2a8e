import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TFeed, TFeedItem } from "@/contracts/feed-item";
import { settleDeferred } from "@/server/defer";
import { requestEnhancement } from "@/server/enhancement/enhancement-manager";
import { resetEnvForTests } from "@/server/env";
import { buildFeed } from "@/server/feed/build-feed";
import { refreshCalendar } from "@/server/feed/calendar/calendar-cache";
import { getFeed } from "@/server/feed/get-feed";
import { refreshTracker } from "@/server/intelligence/refresh";
import { getUserSettings, touchLastActive, updateUserSettings } from "@/server/settings/user-settings";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { feedFixture, feedSetDefinition, RSS } from "../helpers/feed-set";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * The briefing card through getFeed (docs/feed.md, "The briefing card"): first in the feed and dated in the person's
 * time zone; its rule-based lines follow the material changes since yesterday and the calendar's day; a new change is
 * a new card; with the fixture model server, the model's briefing for these inputs is shown, and when the model fails
 * the rules one is.
 */

// Sunday 6 December 2026, 08:00 in Auckland (UTC+13); still Saturday 5 December in UTC.
const NOW = new Date("2026-12-05T19:00:00Z");
const HOUR = 3_600_000;
const CALENDAR = "/briefing/calendar.ics";

const DEFINITION = {
  fields: [
    { name: "price", type: "money", currency: "USD", description: "Price", extractor: { kind: "css", selector: "#p" } },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.01 } },
};

let t: TTestDb;
let site: TFixtureSite;
let model: TModelServer;
let userId: string;
let acme: { trackerId: string; entityId: string };

const usd = (amount: number) => ({ amount, currency: "USD" });

/** A tracker whose one entity is called `name`, with its state as it is now. */
async function pricedTracker(decision: string, name: string) {
  const { tracker } = await createActiveTracker(t.db, {
    userId,
    decision,
    capability: "web.scrape",
    capabilityInput: { url: `https://shop.example/${encodeURIComponent(name)}` },
    definition: DEFINITION,
  });
  const entity = await t.db.trackedEntity.create({ data: { trackerId: tracker.id, entityKey: name } });
  await t.db.entityCurrentState.create({
    data: {
      entityId: entity.id,
      fields: { name, price: usd(45) },
      contentHash: "h",
      definitionVersion: 1,
      lastCheckedAt: NOW,
      updatedAt: NOW,
    },
  });
  return { trackerId: tracker.id, entityId: entity.id };
}

async function recordChange(
  who: { trackerId: string; entityId: string },
  at: Date,
  from: number,
  to: number,
  materiality: "material" | "notable" = "material",
) {
  const run = await t.db.refreshRun.create({
    data: { trackerId: who.trackerId, trigger: "cron", status: "completed" },
  });
  await t.db.entityChange.create({
    data: {
      entityId: who.entityId,
      trackerId: who.trackerId,
      runId: run.id,
      capturedAt: at,
      delta: { price: { from: usd(from), to: usd(to) } },
      decisions: { price: { verdict: materiality, decidedBy: "code", reason: "moved" } },
      materiality,
      definitionVersion: 1,
    },
  });
}

const ics = (...events: [uid: string, start: string, summary: string][]) =>
  [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Bellwether tests//EN",
    ...events.flatMap(([uid, start, summary]) => [
      "BEGIN:VEVENT",
      `UID:${uid}`,
      "DTSTAMP:20261201T000000Z",
      `DTSTART:${start}`,
      `SUMMARY:${summary}`,
      "END:VEVENT",
    ]),
    "END:VCALENDAR",
    "",
  ].join("\r\n");

async function setCalendar(body: string) {
  site.setPage(CALENDAR, { body, contentType: "text/calendar" });
  const outcome = await refreshCalendar(t.db, {
    userId,
    url: site.urlFor(CALENDAR),
    now: NOW,
    fetchConfig: localCapabilityConfig([site.url]).fetch,
    force: true,
  });
  expect(outcome).toBe("downloaded");
}

const load = (now = NOW): Promise<TFeed> => getFeed(t.db, userId, { now, enhance: false });

function briefingOf(feed: TFeed): { card: TFeedItem; title: unknown; lines: unknown } {
  const card = feed.items[0] as TFeedItem;
  const elements = Object.values(card.ui?.elements ?? {});
  return {
    card,
    title: elements.find((e) => e.type === "Heading")?.props.text,
    lines: elements.find((e) => e.type === "Briefing")?.props.lines,
  };
}

beforeAll(async () => {
  [t, site, model] = await Promise.all([createTestDb(), startFixtureSite(), startModelServer()]);
  process.env.FETCH_ALLOW_HOSTS = `127.0.0.1:${site.port}`;
  resetEnvForTests();
  userId = (await ensureLocalUser(t.db)).id;
  await updateUserSettings(t.db, userId, {
    locationName: null,
    latitude: null,
    longitude: null,
    timezone: "Pacific/Auckland",
    calendarUrl: null,
    memory: "",
  });
  acme = await pricedTracker("Should we match Acme's price?", "Acme Pro");
  // Three days ago: on the tracker's card, not in the briefing.
  await recordChange(acme, new Date(NOW.getTime() - 72 * HOUR), 55, 50);
});

afterAll(async () => {
  delete process.env.FETCH_ALLOW_HOSTS;
  resetEnvForTests();
  await settleDeferred();
  await Promise.all([t?.close(), site?.close(), model?.close()]);
});

describe("rules mode: the briefing is the first card, dated, and follows its inputs", () => {
  it("nothing since yesterday: a quiet line, dated Sunday 6 December in Auckland", async () => {
    const feed = await load();
    const { card, title, lines } = briefingOf(feed);
    expect(card.type).toBe("briefing");
    expect(title).toBe("Sunday 6 December");
    expect(lines).toEqual(["No material changes since yesterday"]);
    expect(card.slots?.briefing?.content).toBeNull();
    // The older change still has its own card below.
    expect(feed.items.slice(1).some((i) => i.type === "tracker-change")).toBe(true);
  });

  it("a new material change changes the card (a new id, its text); a notable one does not", async () => {
    const before = briefingOf(await load()).card.id;
    await recordChange(acme, new Date(NOW.getTime() - HOUR), 50, 45);
    const after = briefingOf(await load());
    expect(after.card.id).not.toBe(before);
    expect(after.lines).toEqual(["1 material change since yesterday — Acme Pro: price −10%"]);
    // Yesterday in Auckland began at 2026-12-04T11:00Z: a change just after it counts, one just before does not.
    const olive = await pricedTracker("Is Olive cheaper than us?", "Olive Basic");
    await recordChange(olive, new Date("2026-12-04T10:59:00Z"), 20, 22);
    await recordChange(olive, new Date("2026-12-04T11:01:00Z"), 22, 24);
    await recordChange(olive, new Date(NOW.getTime() - 2 * HOUR), 24, 23, "notable");
    expect(briefingOf(await load()).lines).toEqual([
      "2 material changes since yesterday — Acme Pro: price −10%, Olive Basic: price +9.1%",
    ]);
    // Same inputs, same card: another load a minute later is the same id.
    const again = briefingOf(await load(new Date(NOW.getTime() + 60_000)));
    expect(again.card.id).toBe(briefingOf(await load()).card.id);
  });

  it("with a calendar: today's events in Auckland; a changed calendar changes the card", async () => {
    await updateUserSettings(t.db, userId, {
      locationName: null,
      latitude: null,
      longitude: null,
      timezone: "Pacific/Auckland",
      calendarUrl: site.urlFor(CALENDAR),
      memory: "",
    });
    await setCalendar(
      ics(
        ["standup@test", "20261205T203000Z", "Stand-up"], // Sunday 09:30 in Auckland
        ["lunch@test", "20261206T000000Z", "Lunch"], // Sunday 13:00
        ["monday@test", "20261206T210000Z", "Monday review"], // Monday 10:00
      ),
    );
    const first = briefingOf(await load());
    expect(first.card.id).toMatch(/^briefing:2026-12-06:/);
    expect((first.lines as string[])[1]).toBe("2 events today, first at 9:30");

    await setCalendar(
      ics(
        ["standup@test", "20261205T203000Z", "Stand-up"],
        ["lunch@test", "20261206T000000Z", "Lunch"],
        ["review@test", "20261206T030000Z", "Review"], // Sunday 16:00
        ["monday@test", "20261206T210000Z", "Monday review"],
      ),
    );
    const second = briefingOf(await load());
    expect(second.card.id).not.toBe(first.card.id);
    expect((second.lines as string[])[1]).toBe("3 events today, first at 9:30");
    // Once the stand-up has begun: what is left of the day.
    const later = briefingOf(await load(new Date("2026-12-05T21:00:00Z")));
    expect((later.lines as string[])[1]).toBe("2 more events today, next at 13:00");
  });
});

describe("the feed's time zone", () => {
  it("without one in Settings: the browser's when the feed is told it (as the agenda), else UTC", async () => {
    const other = (await t.db.user.create({ data: { name: "No zone", email: "no-zone@example.test" } })).id;
    const settings = await getUserSettings(t.db, other);
    const title = async (browserTimeZone: string | null) => {
      const { items } = await buildFeed(t.db, other, settings, { now: NOW, defer: () => {}, browserTimeZone });
      const elements = Object.values(items[0]?.ui?.elements ?? {});
      return elements.find((e) => e.type === "Heading")?.props.text;
    };
    expect(await title("Pacific/Auckland")).toBe("Sunday 6 December");
    expect(await title(null)).toBe("Saturday 5 December");
  });
});

describe("model mode: the model's briefing for these inputs, else the rules one", () => {
  const answer = (itemId: string, text: string) => ({
    slotFills: [{ itemId, slot: "briefing", text }],
    syntheticItems: [],
    suppress: [],
    rankingHints: [{ itemId, delta: -1 }],
  });

  it("the model writes the briefing into the card's slot; the card stays first and dated", async () => {
    await touchLastActive(t.db, userId, NOW);
    const feed = await load();
    const { card } = briefingOf(feed);
    model.setRecordings([
      {
        name: "briefing",
        match: { schemaName: "feed_enhancement" },
        response: {
          json: answer(card.id, "Acme Pro is 10% cheaper since this morning.\nStand-up at 9:30, lunch at 1."),
        },
      },
    ]);
    const outcome = await requestEnhancement(t.db, userId, feed.items, "", {
      now: NOW,
      model: fixtureModel(model.url),
      lastActiveAt: NOW,
    });
    expect(outcome).toBe("enhanced");
    // The model read the card: its type, its rule-based lines and the slot's description.
    const prompt = model.requests.at(-1)?.summary.lastUser ?? "";
    expect(prompt).toContain(card.id);
    expect(prompt).toContain("3 events today, first at 9:30");

    const enhanced = briefingOf(await load());
    expect(enhanced.card.id).toBe(card.id);
    expect(enhanced.title).toBe("Sunday 6 December");
    expect(enhanced.card.slots?.briefing?.content).toBe(
      "Acme Pro is 10% cheaper since this morning.\nStand-up at 9:30, lunch at 1.",
    );
  });

  it("a new change: the model's text for the old inputs is not shown; when the model fails, the rules one is", async () => {
    const old = briefingOf(await load()).card.id;
    await recordChange(acme, new Date(NOW.getTime() - 30 * 60_000), 45, 40);
    model.setRecordings([
      {
        name: "down",
        match: { schemaName: "feed_enhancement" },
        response: { status: 500, error: { message: "down" } },
      },
    ]);
    const feed = await load();
    const { card, lines } = briefingOf(feed);
    expect(card.id).not.toBe(old);
    expect(card.slots?.briefing?.content).toBeNull();
    expect(lines).toEqual([
      "3 material changes since yesterday — Acme Pro: price −11% (2 changes), Olive Basic: price +9.1%",
      "3 events today, first at 9:30",
    ]);
    const outcome = await requestEnhancement(t.db, userId, feed.items, "", {
      now: NOW,
      model: fixtureModel(model.url),
      lastActiveAt: NOW,
    });
    expect(outcome).toBe("failed");
    const after = briefingOf(await load());
    expect(after.card.id).toBe(card.id);
    expect(after.card.slots?.briefing?.content).toBeNull();
    expect(after.lines).toEqual(lines);
  });
});

describe("a set tracker reads by its roll-up's headline", () => {
  it("a real set refresh over a changing feed: the briefing names the set and its counts", async () => {
    const path = "/briefing/changelog.rss";
    site.setPage(path, { body: feedFixture("changelog.rss.xml"), contentType: RSS });
    const { tracker } = await createActiveTracker(t.db, {
      userId,
      capability: "feed.items",
      capabilityInput: { url: site.urlFor(path) },
      definition: feedSetDefinition({ missingAfter: 1 }),
      decision: "Rival shop",
    });
    const options = {
      trigger: "manual" as const,
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
    };
    expect((await refreshTracker(t.db, tracker.id, options)).outcome).toBe("baseline");
    site.setPage(path, { body: feedFixture("changelog-v2.rss.xml"), contentType: RSS });
    expect((await refreshTracker(t.db, tracker.id, options)).outcome).toBe("material");
    // The refresh wrote at the real time: the briefing is read at it too. The set is the newest change, named first
    // by its headline's counts (the members it goes on to name are its card's).
    const { lines } = briefingOf(await getFeed(t.db, userId, { enhance: false }));
    expect((lines as string[])[0]).toMatch(/ since yesterday — “Rival shop”: 1 new entry, 1 gone, 1 changed(,| and|$)/);
  });
});

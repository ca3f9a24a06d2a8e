import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getFeed } from "@/server/feed/get-feed";
import { updateUserSettings } from "@/server/settings/user-settings";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { countSql } from "../bench/sql-counter";
import { createTestDb, type TTestDb } from "../helpers/db";

/**
 * A feed load reads each kind of row with a fixed number of statements, however many cards it shows:
 * the same count at ~50 and ~500 cards (counted on the PGlite instance, so every statement is seen).
 */

const NOW = new Date("2026-11-29T15:00:00Z");
let t: TTestDb;
let userId: string;

async function addFailingTrackers(count: number, from: number): Promise<void> {
  await t.db.tracker.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      userId,
      decision: `Is venue ${from + i} open?`,
      capability: "web.scrape",
      capabilityInput: { url: `https://venue.example/${from + i}` },
      status: "active" as const,
      consecutiveFailures: 3,
      lastError: "The page answered HTTP 500.",
    })),
  });
}

beforeAll(async () => {
  t = await createTestDb();
  userId = (await ensureLocalUser(t.db)).id;
  const settings = { locationName: null, latitude: null, longitude: null, timezone: null, calendarUrl: null };
  await updateUserSettings(t.db, userId, { ...settings, memory: "We care about pricing" });
  // 20 decisions with a change each (one card per decision), 30 failing trackers, the weather and calendar
  // invitations (neither is set up) and the briefing card, first in every feed: 53 cards.
  for (let i = 0; i < 20; i++) {
    const tracker = await t.db.tracker.create({
      data: {
        userId,
        decision: `Match Acme's price (${i})?`,
        capability: "web.scrape",
        capabilityInput: {},
        status: "active",
      },
    });
    const run = await t.db.refreshRun.create({
      data: { trackerId: tracker.id, trigger: "manual", status: "completed" },
    });
    const entity = await t.db.trackedEntity.create({ data: { trackerId: tracker.id, entityKey: `e${i}` } });
    await t.db.entityChange.create({
      data: {
        entityId: entity.id,
        trackerId: tracker.id,
        runId: run.id,
        capturedAt: new Date(NOW.getTime() - (i + 1) * 60_000),
        delta: { price: { from: 10 + i, to: 9 + i } },
        materiality: "material",
        decisions: {},
        definitionVersion: 1,
      },
    });
  }
  await addFailingTrackers(30, 0);
  await t.db.feedEnhancement.create({
    data: { userId, inputHash: "h", result: { slotFills: {}, syntheticItems: [], suppress: [], rankingHints: {} } },
  });
});

afterAll(async () => {
  await t?.close();
});

async function statementsPerLoad(): Promise<{ statements: number; items: number; first?: string }> {
  const sql = countSql(t.pglite);
  try {
    const feed = await getFeed(t.db, userId, { now: NOW, touch: true, enhance: false });
    return { statements: sql.statements, items: feed.items.length, first: feed.items[0]?.sourceId };
  } finally {
    sql.restore();
  }
}

describe("a feed load's SQL does not grow with the feed", () => {
  it("the same statements for ~50 and ~500 cards", async () => {
    await statementsPerLoad(); // first load: nothing cached anywhere yet
    const small = await statementsPerLoad();
    await addFailingTrackers(450, 30);
    const big = await statementsPerLoad();
    // 52 cards of the setup above and 502 after 450 more failing trackers, each plus the one briefing card.
    expect(small.items).toBe(52 + 1);
    expect(big.items).toBe(502 + 1);
    expect([small.first, big.first]).toEqual(["briefing", "briefing"]);
    expect(small.statements).toBeGreaterThan(0);
    expect(big.statements).toBe(small.statements);
  });

  it("a view records itself and the person's activity in one write", async () => {
    const later = new Date(NOW.getTime() + 60_000);
    const statements: string[] = [];
    const sql = countSql(t.pglite, { onStatement: (text) => statements.push(text) });
    try {
      await getFeed(t.db, userId, { now: later, touch: true, enhance: false });
    } finally {
      sql.restore();
    }
    const row = await t.db.userSettings.findUniqueOrThrow({ where: { userId } });
    expect(row.feedSeenAt).toEqual(later);
    expect(row.lastActiveAt).toEqual(later); // the enhancement's 2-hour rule sees the view
    const writes = statements.filter((q) => /^\s*(INSERT|UPDATE)/i.test(q) && q.includes("UserSettings"));
    expect(writes).toHaveLength(1);
  });

  it("reads the person's settings row once, whether or not the load is a view", async () => {
    for (const touch of [true, false]) {
      const statements: string[] = [];
      const sql = countSql(t.pglite, { onStatement: (text) => statements.push(text) });
      try {
        await getFeed(t.db, userId, { now: new Date(NOW.getTime() + 120_000), touch, enhance: false });
      } finally {
        sql.restore();
      }
      const reads = statements.filter((q) => /^\s*SELECT/i.test(q) && q.includes('"UserSettings"'));
      expect(reads, `touch: ${touch}`).toHaveLength(1);
    }
  });

  it("reads the calendar's cached copy once: the agenda and the briefing share it", async () => {
    const url = "https://calendar.example/team.ics";
    const settings = {
      locationName: null,
      latitude: null,
      longitude: null,
      timezone: null,
      memory: "We care about pricing",
    };
    await updateUserSettings(t.db, userId, { ...settings, calendarUrl: url });
    // A fresh copy (not due): the load reads it and schedules no download.
    await t.db.calendarCache.create({
      data: {
        userId,
        url,
        urlHash: createHash("sha256").update(url).digest("hex"),
        occurrences: [
          {
            uid: "review",
            recurrenceId: null,
            summary: "Pricing review",
            location: null,
            allDay: false,
            start: "2026-11-29T17:00:00.000Z",
            end: "2026-11-29T18:00:00.000Z",
          },
        ],
        fetchedAt: NOW,
        checkedAt: NOW,
        nextFetchAt: new Date(NOW.getTime() + 3_600_000),
      },
    });
    const statements: string[] = [];
    const sql = countSql(t.pglite, { onStatement: (text) => statements.push(text) });
    let feed: Awaited<ReturnType<typeof getFeed>>;
    try {
      feed = await getFeed(t.db, userId, { now: NOW, touch: false, enhance: false });
    } finally {
      sql.restore();
    }
    // One statement for one key: Prisma folds findUnique calls made in the same tick into one statement (an OR of
    // their keys), so a second read by another source would show as a second key, not as a second statement.
    const reads = statements.filter((q) => q.includes('"CalendarCache"'));
    expect(reads).toHaveLength(1);
    expect(reads[0]).not.toMatch(/\bOR\b/);
    // Both showed the event from that one read.
    const shows = (sourceId: string) =>
      feed.items.some((i) => i.sourceId === sourceId && JSON.stringify(i).includes("Pricing review"));
    expect(shows("calendar")).toBe(true);
    expect(shows("briefing")).toBe(true);
  });
});

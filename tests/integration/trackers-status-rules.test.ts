import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trackersSource } from "@/server/feed/sources/trackers-source";
import { refreshTracker } from "@/server/intelligence/refresh";
import { claimDueTrackers } from "@/server/intelligence/tracker-store";
import {
  dueWhere,
  FAILING_AFTER,
  FAILING_WHERE,
  getTrackerOverview,
  isDue,
  isFailing,
  listTrackerSummaries,
  setTrackerStatus,
} from "@/server/trackers";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * "failing" and "due" have one definition (tracker-status-rules.ts); the trackers list, the tracker page,
 * the feed's trackers source and the scheduler's claim all answer from it, so they agree.
 */

const definition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

let db: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  db = await createTestDb();
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
  await db?.close();
});

async function tracker(path: string, userId?: string) {
  const { tracker } = await createActiveTracker(db.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition,
    ...(userId ? { userId } : {}),
  });
  return tracker;
}

/** Real failed refreshes: the page answers 500, the run fails, the tracker counts it. */
async function failRefreshes(trackerId: string, times: number) {
  for (let i = 0; i < times; i++) {
    const result = await refreshTracker(db.db, trackerId, {
      trigger: "manual",
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
    });
    expect(result.status).toBe("failed");
  }
}

async function feedFailingIds(userId: string): Promise<string[]> {
  const items = await trackersSource(db.db).fetchItems({
    userId,
    now: new Date(),
    env: undefined,
    contexts: {},
    reportError: () => {},
  });
  return items.filter((i) => i.type === "tracker-failing").map((i) => String(i.data.trackerId));
}

describe('"failing": one rule for the list, the tracker page and the feed', () => {
  it("a paused (or archived) tracker with failures is not failing anywhere; an active one is", async () => {
    site.setPage("/broken", { status: 500, body: "Internal error" });
    const active = await tracker("/broken");
    const userId = active.userId;
    const paused = await tracker("/broken", userId);
    const archived = await tracker("/broken", userId);
    const fewer = await tracker("/broken", userId);
    await failRefreshes(active.id, FAILING_AFTER);
    await failRefreshes(paused.id, FAILING_AFTER + 1);
    await failRefreshes(archived.id, FAILING_AFTER);
    await failRefreshes(fewer.id, FAILING_AFTER - 1);
    await setTrackerStatus(db.db, { userId, trackerId: paused.id, status: "paused" });
    await setTrackerStatus(db.db, { userId, trackerId: archived.id, status: "archived" });

    const rows = await db.db.tracker.findMany({ where: { userId } });
    expect(rows.find((r) => r.id === paused.id)).toMatchObject({ status: "paused", consecutiveFailures: 4 });

    // The rule, in both forms, picks exactly the active tracker.
    const byPredicate = rows.filter(isFailing).map((r) => r.id);
    const byWhere = (await db.db.tracker.findMany({ where: { userId, ...FAILING_WHERE } })).map((r) => r.id);
    expect(byPredicate).toEqual([active.id]);
    expect(byWhere).toEqual([active.id]);

    // The list (flag and filter), the tracker page and the feed agree with it.
    const summaries = await listTrackerSummaries(db.db, { userId });
    expect(summaries.filter((s) => s.failing).map((s) => s.id)).toEqual([active.id]);
    expect((await listTrackerSummaries(db.db, { userId, status: "failing" })).map((s) => s.id)).toEqual([active.id]);
    expect((await getTrackerOverview(db.db, { userId, trackerId: paused.id })).tracker.failing).toBe(false);
    expect((await getTrackerOverview(db.db, { userId, trackerId: active.id })).tracker.failing).toBe(true);
    expect(await feedFailingIds(userId)).toEqual([active.id]);

    // Resumed while still broken: failing again at once, in the list and in the feed alike.
    await setTrackerStatus(db.db, { userId, trackerId: paused.id, status: "active" });
    const failingNow = (await listTrackerSummaries(db.db, { userId, status: "failing" })).map((s) => s.id);
    expect(new Set(failingNow)).toEqual(new Set([active.id, paused.id]));
    expect(new Set(await feedFailingIds(userId))).toEqual(new Set(failingNow));
  });
});

describe('"due": one rule for the claim and for queries', () => {
  it("the claim takes exactly the trackers dueWhere and isDue call due", async () => {
    const now = new Date();
    const past = new Date(now.getTime() - 60_000);
    const future = new Date(now.getTime() + 3_600_000);
    const { id: userId } = await db.db.user.create({ data: { name: "Due", email: "due@example.test" } });
    const due = await tracker("/due", userId);
    const exactlyNow = await tracker("/now", userId);
    const later = await tracker("/later", userId);
    const paused = await tracker("/paused", userId);
    await db.db.tracker.update({ where: { id: due.id }, data: { nextRunAt: past } });
    await db.db.tracker.update({ where: { id: exactlyNow.id }, data: { nextRunAt: now } });
    await db.db.tracker.update({ where: { id: later.id }, data: { nextRunAt: future } });
    await db.db.tracker.update({ where: { id: paused.id }, data: { nextRunAt: past } });
    await setTrackerStatus(db.db, { userId, trackerId: paused.id, status: "paused" });

    const rows = await db.db.tracker.findMany({ where: { userId } });
    const expected = new Set([due.id, exactlyNow.id]);
    expect(new Set(rows.filter((r) => isDue(r, now)).map((r) => r.id))).toEqual(expected);
    const byWhere = await db.db.tracker.findMany({ where: { userId, ...dueWhere(now) } });
    expect(new Set(byWhere.map((r) => r.id))).toEqual(expected);
    // The claim sees every user's trackers; the other test's are never due at `now`, but filter anyway.
    const claimed = (await claimDueTrackers(db.db, { limit: 100, now, leaseMs: 8000 })).map((c) => c.id);
    expect(new Set(claimed.filter((id) => rows.some((r) => r.id === id)))).toEqual(expected);
  });
});

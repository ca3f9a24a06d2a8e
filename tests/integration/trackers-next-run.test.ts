import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker } from "@/server/intelligence/refresh";
import { jitterMs } from "@/server/intelligence/tracker-store";
import { setTrackerSchedule } from "@/server/trackers";
import { runDueRefreshes } from "@/server/triggers";
import { countSql, type TSqlCounter } from "../bench/sql-counter";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * The next run time (schedule or backoff, plus the tracker's stable jitter) is computed once and
 * written once: by the refresh's final transaction. Nothing re-reads and rewrites it afterwards.
 * Statements are counted on the PGlite instance, so every write to "Tracker" is seen.
 */

const MINUTE = 60_000;
const page = (price: string) =>
  `<!doctype html><html><head><title>Shop</title></head><body><main><p>Price <span id="price">${price}</span></p></main></body></html>`;
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

async function tracker(path: string) {
  site.setPage(path, { body: page("10") });
  const { tracker } = await createActiveTracker(db.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition,
  });
  // Every other tracker in this file is done with; only this one may be due.
  await db.db.tracker.updateMany({ where: { id: { not: tracker.id } }, data: { status: "archived" } });
  return tracker;
}

const refreshOptions = (now: Date) => ({
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
  now: () => now,
});

/** UPDATE "Tracker" statements whose SET clause writes nextRunAt, as SQL text. */
function watchNextRunWrites(): { writes: string[]; counter: TSqlCounter } {
  const writes: string[] = [];
  const counter = countSql(db.pglite, {
    onStatement: (sql) => {
      // Top-level or inside a WITH (the refresh's final write is one statement of several sub-statements).
      const sets = [...sql.matchAll(/\bUPDATE\s+(?:"public"\.)?"Tracker"[\s\S]*?\bSET\b([\s\S]*?)\bWHERE\b/gi)];
      if (sets.some((m) => m[1]?.includes('"nextRunAt"'))) writes.push(sql);
    },
  });
  return { writes, counter };
}

describe("nextRunAt is computed once and written once", () => {
  it("a scheduled (cron) refresh writes schedule + jitter in its final transaction, and nothing after it", async () => {
    const t = await tracker("/cron");
    const now = new Date("2030-01-01T12:00:00Z");
    await db.db.tracker.update({ where: { id: t.id }, data: { nextRunAt: new Date(now.getTime() - MINUTE) } });
    const jitter = jitterMs(t.id, t.scheduleMinutes);
    expect(jitter).toBeGreaterThan(0);

    const { writes, counter } = watchNextRunWrites();
    try {
      const summary = await runDueRefreshes(db.db, {
        trigger: "cron",
        budgetMs: 20_000,
        concurrency: 1,
        now: () => now,
        refreshOptions: refreshOptions(now),
      });
      expect(summary).toMatchObject({ claimed: 1, completed: 1 });
    } finally {
      counter.restore();
    }

    const row = await db.db.tracker.findUniqueOrThrow({ where: { id: t.id } });
    expect(row.nextRunAt?.getTime()).toBe(now.getTime() + t.scheduleMinutes * MINUTE + jitter);
    // ONE write of nextRunAt: the refresh's final bookkeeping. The claims take leases and leave nextRunAt
    // alone; before, a pass after the refresh re-read the row and rewrote nextRunAt with the jitter added.
    expect(writes.filter((sql) => /FOR UPDATE SKIP LOCKED/.test(sql))).toEqual([]);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/"consecutiveFailures"/);
  });

  it("a manual refresh gets the same jitter, in one write", async () => {
    const t = await tracker("/manual");
    const now = new Date("2030-01-02T08:00:00Z");
    const { writes, counter } = watchNextRunWrites();
    try {
      expect((await refreshTracker(db.db, t.id, { ...refreshOptions(now), trigger: "manual" })).status).toBe(
        "completed",
      );
    } finally {
      counter.restore();
    }
    const row = await db.db.tracker.findUniqueOrThrow({ where: { id: t.id } });
    expect(row.nextRunAt?.getTime()).toBe(now.getTime() + t.scheduleMinutes * MINUTE + jitterMs(t.id, 60));
    expect(writes).toHaveLength(1);
  });

  it("a failed refresh writes backoff + jitter once; a schedule change applies the same rule", async () => {
    const t = await tracker("/down");
    site.setPage("/down", { status: 500, body: "down" });
    const now = new Date("2030-01-03T08:00:00Z");
    const { writes, counter } = watchNextRunWrites();
    try {
      expect((await refreshTracker(db.db, t.id, { ...refreshOptions(now), trigger: "manual" })).status).toBe("failed");
    } finally {
      counter.restore();
    }
    expect(writes).toHaveLength(1);
    const failed = await db.db.tracker.findUniqueOrThrow({ where: { id: t.id } });
    // First failure: 1 minute of backoff, plus the tracker's jitter.
    expect(failed.nextRunAt?.getTime()).toBe(now.getTime() + MINUTE + jitterMs(t.id, 60));

    // Daily instead of hourly: the same computation, and the earlier next run is kept.
    const daily = await setTrackerSchedule(db.db, { userId: t.userId, trackerId: t.id, scheduleMinutes: 1440 });
    expect(daily.nextRunAt?.getTime()).toBe(failed.nextRunAt?.getTime());
    site.setPage("/down", { body: page("10") });
    const later = new Date(now.getTime() + 10 * MINUTE);
    await refreshTracker(db.db, t.id, { ...refreshOptions(later), trigger: "manual" });
    const healed = await db.db.tracker.findUniqueOrThrow({ where: { id: t.id } });
    expect(healed.nextRunAt?.getTime()).toBe(later.getTime() + 1440 * MINUTE + jitterMs(t.id, 1440));
  });
});

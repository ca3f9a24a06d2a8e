import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDb, type TDbHandle } from "@/server/db";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig } from "../helpers/trackers";

/**
 * Concurrency on a real PostgreSQL: two "processes" (separate clients and connection pools) fire 20
 * refreshes of one tracker at the same moment. The lease and the idempotency key must make exactly one
 * of them do the work.
 */
const definition = cssPriceDefinition(0.01);

describe.skipIf(!hasPostgres)("refresh concurrency on PostgreSQL", () => {
  let pg: TPostgresTestDb;
  let second: TDbHandle;
  let site: TFixtureSite;

  beforeAll(async () => {
    pg = await createPostgresTestDb();
    second = await createPostgresDb(pg.url);
    site = await startFixtureSite();
    // A slow page widens the window in which the calls overlap.
    site.setPage("/p", { body: `<main><span id="price">$10.00</span></main>`, delayMs: 150 });
  });
  afterAll(async () => {
    await site?.close();
    await second?.close();
    await pg?.drop();
  });

  const options = (extra: Partial<TRefreshOptions> = {}): TRefreshOptions => ({
    trigger: "cron",
    models: { filler: null, judge: null },
    capabilityConfig: localCapabilityConfig([site.url]),
    ...extra,
  });

  it("20 concurrent deliveries of the same refresh → one run does the work, one change row, one ledger entry", async () => {
    const { tracker } = await createActiveTracker(pg.db, {
      capability: "web.scrape",
      capabilityInput: { url: `${site.url}/p` },
      definition,
    });
    const hits = site.requests.length;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        refreshTracker(i % 2 ? second.db : pg.db, tracker.id, options({ idempotencyKey: "tick-1" })),
      ),
    );
    const worked = results.filter((r) => r.status === "completed" && !r.replayed && r.outcome === "baseline");
    expect(worked).toHaveLength(1);
    for (const r of results) expect(r.runId).toBe(worked[0]?.runId);
    expect(await pg.db.refreshRun.count({ where: { trackerId: tracker.id } })).toBe(1);
    expect(await pg.db.entityChange.count({ where: { trackerId: tracker.id } })).toBe(1);
    expect(await pg.db.capabilityCall.count({ where: { run: { trackerId: tracker.id } } })).toBe(1);
    expect(site.requests.length - hits).toBe(1);
  });

  it("20 concurrent refreshes without a key → one in flight at a time, the rest told so, one change row", async () => {
    const { tracker } = await createActiveTracker(pg.db, {
      capability: "web.scrape",
      capabilityInput: { url: `${site.url}/p?copy=2` },
      definition,
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => refreshTracker(i % 2 ? second.db : pg.db, tracker.id, options())),
    );
    const baseline = results.filter((r) => r.outcome === "baseline");
    const skipped = results.filter((r) => r.status === "skipped");
    expect(baseline).toHaveLength(1);
    expect(skipped.length).toBeGreaterThan(0);
    for (const r of skipped) expect(r).toMatchObject({ outcome: "in_flight", summary: "skipped: in flight" });
    // Whoever ran after the first finished saw identical content: no second change row.
    for (const r of results) expect(["baseline", "unchanged", "in_flight"]).toContain(r.outcome);
    expect(await pg.db.entityChange.count({ where: { trackerId: tracker.id } })).toBe(1);
    const crawled = results.filter((r) => r.status === "completed").length;
    expect(await pg.db.capabilityCall.count({ where: { run: { trackerId: tracker.id } } })).toBe(crawled);
    const tracked = await pg.db.tracker.findUniqueOrThrow({ where: { id: tracker.id } });
    expect(tracked.leaseToken).toBeNull();
  });
});

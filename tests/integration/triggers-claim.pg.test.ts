import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDb, type TDbHandle } from "@/server/db";
import { CLAIM_SELECT_SQL } from "@/server/intelligence/tracker-store";
import { handleCronRefresh, runDueRefreshes, runScheduler } from "@/server/triggers";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * Scheduling on a real PostgreSQL: several claimers at the same moment (two cron calls and a worker,
 * each with its own connection pool, as separate processes would have) refresh each due tracker
 * exactly once; and with 10,000 trackers the claim walks the (status, nextRunAt) index and a cron call
 * stops at its budget, leaving the rest for the next tick.
 */
const definition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};
const SECRET = "pg-cron-secret";

describe.skipIf(!hasPostgres)("claiming due trackers on PostgreSQL", () => {
  let pg: TPostgresTestDb;
  let second: TDbHandle;
  let third: TDbHandle;
  let site: TFixtureSite;

  beforeAll(async () => {
    pg = await createPostgresTestDb();
    second = await createPostgresDb(pg.url);
    third = await createPostgresDb(pg.url);
    site = await startFixtureSite();
  });
  afterAll(async () => {
    await site?.close();
    await second?.close();
    await third?.close();
    await pg?.drop();
  });

  const refreshOptions = () => ({
    models: { filler: null, judge: null },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
  });

  it("two cron calls and a worker started at the same moment refresh each due tracker exactly once", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      site.setPage(`/c${i}`, { body: `<main><span id="price">${i + 1}</span></main>`, delayMs: 40 });
      const { tracker } = await createActiveTracker(pg.db, {
        capability: "web.scrape",
        capabilityInput: { url: site.urlFor(`/c${i}`) },
        definition,
      });
      ids.push(tracker.id);
    }
    const cron = (db: TDbHandle["db"]) =>
      handleCronRefresh(
        new Request("http://app/api/cron/refresh", { headers: { authorization: `Bearer ${SECRET}` } }),
        { db, secret: SECRET, budgetMs: 30_000, concurrency: 3, refreshOptions: refreshOptions() },
      ).then((r) => r.json());

    const stop = new AbortController();
    let workerRefreshed = 0;
    const worker = runScheduler(third.db, {
      kind: "worker",
      concurrency: 3,
      budgetMs: 30_000,
      pollMs: 50,
      signal: stop.signal,
      refreshOptions: refreshOptions(),
      onPass: (s) => {
        workerRefreshed += s.completed + s.failed;
      },
    });
    const [a, b] = await Promise.all([cron(pg.db), cron(second.db)]);
    // Let the worker finish whatever it claimed, then stop it gracefully.
    for (let i = 0; i < 100; i++) {
      const due = await pg.db.tracker.count({ where: { id: { in: ids }, lastRunAt: null } });
      if (due === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    stop.abort();
    await worker;

    const runs = await pg.db.refreshRun.groupBy({ by: ["trackerId"], where: { trackerId: { in: ids } }, _count: true });
    expect(runs).toHaveLength(ids.length);
    for (const r of runs) expect(r._count).toBe(1);
    expect(a.completed + b.completed + workerRefreshed).toBe(ids.length);
    expect(a.skipped + b.skipped).toBe(0);
    // Each claimer did a share; none was redundant.
    expect(a.claimed + b.claimed).toBe(a.completed + b.completed);
    const triggers = await pg.db.refreshRun.groupBy({
      by: ["trigger"],
      where: { trackerId: { in: ids } },
      _count: true,
    });
    expect(triggers.reduce((n, t) => n + t._count, 0)).toBe(ids.length);
    await pg.db.tracker.updateMany({ where: { id: { in: ids } }, data: { status: "archived" } });
  });

  it("10,000 trackers: the claim uses the (status, nextRunAt) index and a cron call stops at its budget", async () => {
    site.setPage("/bulk", { body: `<main><span id="price">5</span></main>`, delayMs: 60 });
    const { tracker } = await createActiveTracker(pg.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/bulk") },
      definition,
    });
    await pg.db.tracker.update({ where: { id: tracker.id }, data: { status: "archived" } });
    // 10,000 clones: 300 due now, the rest due over the next days; every 10th paused.
    await pg.db.$executeRawUnsafe(
      `INSERT INTO "Tracker" ("id","userId","decision","capability","capabilityInput","status","lockedVersion","scheduleMinutes","nextRunAt","consecutiveFailures","createdAt","updatedAt")
       SELECT 'bulk_' || g, t."userId", t."decision", t."capability", t."capabilityInput",
              (CASE WHEN g % 10 = 0 THEN 'paused' ELSE 'active' END)::"TrackerStatus", 1, 60,
              CASE WHEN g <= 300 THEN now() - interval '1 minute' ELSE now() + make_interval(secs => g * 60) END,
              0, now(), now()
       FROM generate_series(1, 10000) g, "Tracker" t WHERE t."id" = $1`,
      tracker.id,
    );
    await pg.db.$executeRawUnsafe(
      `INSERT INTO "TrackerDefinition" ("id","trackerId","version","definition","lockedAt","createdAt")
       SELECT 'def_' || t."id", t."id", 1, d."definition", now(), now()
       FROM "Tracker" t, "TrackerDefinition" d WHERE t."id" LIKE 'bulk_%' AND d."trackerId" = $1`,
      tracker.id,
    );
    await pg.db.$executeRawUnsafe(`ANALYZE "Tracker"`);

    const plan = await pg.db.$queryRawUnsafe<{ "QUERY PLAN": unknown }[]>(
      `EXPLAIN (FORMAT JSON) ${CLAIM_SELECT_SQL.replace("$1", "now()").replace("$2", "now()").replace("$3", "8")}`,
    );
    const text = JSON.stringify(plan);
    expect(text).toContain("Tracker_status_nextRunAt_idx");
    expect(text).not.toContain('"Seq Scan"');
    const due = 270; // 300 due, 30 of them paused

    const budgetMs = 1500;
    const first = await runDueRefreshes(pg.db, {
      trigger: "cron",
      budgetMs,
      concurrency: 4,
      refreshOptions: refreshOptions(),
    });
    expect(first.budgetExhausted).toBe(true);
    expect(first.completed).toBeGreaterThan(0);
    expect(first.completed).toBeLessThan(due);
    expect(first.failed + first.errors).toBe(0);
    // The budget bounds when refreshes START; the last ones in flight finish after it (one page each).
    expect(first.durationMs).toBeLessThan(budgetMs + 5000);
    const left = await pg.db.tracker.count({
      where: { id: { startsWith: "bulk_" }, status: "active", nextRunAt: { lte: new Date() } },
    });
    expect(left).toBe(due - first.completed);
    // The next tick continues with the rest.
    const next = await runDueRefreshes(pg.db, {
      trigger: "cron",
      budgetMs,
      concurrency: 4,
      refreshOptions: refreshOptions(),
    });
    expect(next.completed).toBeGreaterThan(0);
    const runs = await pg.db.refreshRun.count({ where: { trackerId: { startsWith: "bulk_" } } });
    expect(runs).toBe(first.completed + next.completed);
  }, 60_000);
});

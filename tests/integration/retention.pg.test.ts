import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Prisma } from "@/server/generated/prisma/client";
import { refreshTracker } from "@/server/intelligence/refresh";
import { pruneRefreshRuns } from "@/server/retention";
import { getUsageThisMonth, monthlyTokensSpent } from "@/server/usage";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { addDayStats, expectedDayStats, storedDayStats } from "../helpers/run-stats";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * Retention on PostgreSQL: the same one-statement prune as on PGlite, and several prunes at once (separate
 * connections from the pool, as several workers or instances would run them) never count a run twice or lose one.
 */

const DAY = 86_400_000;
const NOW = new Date("2026-03-10T12:00:00Z");
const RETENTION_DAYS = 7;
const CUTOFF = new Date(NOW.getTime() - RETENTION_DAYS * DAY);
const definition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

describe.skipIf(!hasPostgres)("pruneRefreshRuns on PostgreSQL", () => {
  let pg: TPostgresTestDb;
  let site: TFixtureSite;
  let userId: string;
  const trackers: string[] = [];

  beforeAll(async () => {
    [pg, site] = await Promise.all([createPostgresTestDb(), startFixtureSite()]);
    for (let i = 0; i < 3; i++) {
      site.setPage(`/p${i}`, { body: `<main><span id="price">${10 + i}</span></main>` });
      const created = await createActiveTracker(pg.db, {
        ...(userId ? { userId } : {}),
        capability: "web.scrape",
        capabilityInput: { url: site.urlFor(`/p${i}`) },
        definition,
      });
      userId = created.userId;
      trackers.push(created.tracker.id);
    }
  });
  afterAll(async () => {
    await Promise.all([pg?.drop(), site?.close()]);
  });

  /** Real refreshes (baseline, then unchanged), their rows dated `when` + a minute each. */
  async function realRuns(trackerId: string, when: Date, count: number) {
    for (let i = 0; i < count; i++) {
      const now = new Date(when.getTime() + i * 60_000);
      const result = await refreshTracker(pg.db, trackerId, {
        trigger: "manual",
        models: { filler: null, judge: null },
        capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
        now: () => now,
      });
      await pg.db.refreshRun.update({ where: { id: result.runId }, data: { createdAt: now } });
    }
  }

  /** Many more rows in the shape refreshes leave them, spread over days on both sides of the cutoff. */
  async function bulkRuns(seed: number) {
    const runs: Prisma.RefreshRunCreateManyInput[] = [];
    const calls: Prisma.CapabilityCallCreateManyInput[] = [];
    for (const [ti, trackerId] of trackers.entries()) {
      for (let d = 0; d < 10; d++) {
        const day = new Date(Date.UTC(2026, 1, 24 + d, 0, 0));
        for (let i = 0; i < 40; i++) {
          const id = randomUUID();
          const createdAt = new Date(day.getTime() + ((i * 37 + seed * 11 + ti) % 1440) * 60_000);
          const kind = (i + seed + ti) % 10;
          const status = kind === 0 ? "skipped" : kind === 1 ? "failed" : "completed";
          const outcome =
            status === "skipped" ? "in_flight" : status === "failed" ? null : kind === 2 ? "noise" : "unchanged";
          const modelCalls = kind === 3 ? 1 : 0;
          runs.push({
            id,
            trackerId,
            trigger: "cron",
            status,
            outcome,
            modelCalls,
            inputTokens: modelCalls * (100 + i),
            outputTokens: modelCalls * 7,
            createdAt,
          });
          if (status !== "skipped") {
            calls.push({
              runId: id,
              callKey: "crawl:web.scrape",
              capability: "web.scrape",
              status: status === "failed" ? "failed" : "completed",
              requests: 1 + (i % 2),
              bytes: 1000 + i * 13 + d,
              durationMs: 5,
            });
          }
        }
      }
    }
    await pg.db.refreshRun.createMany({ data: runs });
    await pg.db.capabilityCall.createMany({ data: calls });
  }

  const usage = async () => ({
    feb: await getUsageThisMonth(pg.db, { userId, now: new Date("2026-02-27T00:00:00Z") }),
    mar: await getUsageThisMonth(pg.db, { userId, now: NOW }),
    tokensFeb: await monthlyTokensSpent(pg.db, { userId, now: new Date("2026-02-27T00:00:00Z") }),
    tokensMar: await monthlyTokensSpent(pg.db, { userId, now: NOW }),
  });

  it("four prunes at once, in small batches, count every pruned run exactly once", async () => {
    for (const [i, trackerId] of trackers.entries()) await realRuns(trackerId, new Date(Date.UTC(2026, 1, 25, i)), 4);
    let total: ReturnType<typeof addDayStats> = [];
    for (let round = 0; round < 3; round++) {
      await bulkRuns(round);
      const before = await usage();
      const expected = await expectedDayStats(pg.db, CUTOFF);
      expect(expected.runIds.size).toBeGreaterThan(500);
      expect(expected.stats.some((s) => s.skipped > 0 && s.inputTokens > 0)).toBe(true);
      const keptBefore = await pg.db.refreshRun.findMany({
        where: { id: { notIn: [...expected.runIds] } },
        orderBy: { id: "asc" },
      });

      const results = await Promise.all(
        [0, 1, 2, 3].map(() => pruneRefreshRuns(pg.db, { now: NOW, retentionDays: RETENTION_DAYS, batchSize: 25 })),
      );
      expect(results.reduce((n, r) => n + r.runs, 0)).toBe(expected.runIds.size);
      // More than one prune did work, so they really ran side by side.
      expect(results.filter((r) => r.runs > 0).length).toBeGreaterThan(1);
      expect(results.every((r) => r.done)).toBe(true);
      // Freed space is left to autovacuum; a prune vacuums itself only where there is none (this server may have it off).
      const [setting] = await pg.db.$queryRaw<
        { autovacuum: string }[]
      >`SELECT current_setting('autovacuum') AS "autovacuum"`;
      for (const r of results) expect(r.vacuumed).toBe(r.runs > 0 && setting?.autovacuum === "off");

      total = addDayStats(total, expected.stats);
      expect(await storedDayStats(pg.db)).toEqual(total);
      expect(await pg.db.refreshRun.findMany({ orderBy: { id: "asc" } })).toEqual(keptBefore);
      expect(await pg.db.capabilityCall.count({ where: { runId: { in: [...expected.runIds] } } })).toBe(0);
      expect(await usage()).toEqual(before);
    }
    // The real refreshes' baselines are kept (the timeline references them); their unchanged checks were pruned.
    for (const trackerId of trackers) {
      const kept = await pg.db.refreshRun.findMany({ where: { trackerId, outcome: "baseline" } });
      expect(kept).toHaveLength(1);
      expect(await pg.db.entityChange.count({ where: { runId: kept[0]?.id } })).toBe(1);
    }
  });
});

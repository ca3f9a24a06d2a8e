import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createCaller } from "@/server/api/root";
import { createApiToken } from "@/server/api-tokens";
import type { TDb } from "@/server/db";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import type { TLogger } from "@/server/logger";
import { createRunPruner, pruneRefreshRuns } from "@/server/retention";
import { queryTimeline } from "@/server/timeline";
import { getNumericSeries, listRefreshRuns } from "@/server/trackers";
import { handleCronRefresh } from "@/server/triggers";
import { getUsageThisMonth, monthlyTokensSpent } from "@/server/usage";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { addDayStats, expectedDayStats, storedDayStats } from "../helpers/run-stats";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * Retention (docs/design.md §4) on embedded PGlite: trackers refreshed for real (fixture site, fixture model server) with an
 * injected clock over several days, then pruned. Unchanged and skipped runs past the retention period go, summed per
 * tracker per day; the timeline, the charts, the runs log of everything else, the token budget and "usage this month"
 * read the same as before.
 */

const page = (price: string, tagline: string) =>
  `<!doctype html><html><head><title>Rival</title><link rel="canonical" href="/rival"></head>
<body><main><p>Espresso <span id="price">${price}</span></p><p id="tagline">${tagline}</p></main></body></html>`;

/** price by code (5% is material); tagline filled by the model. */
const modelDefinition = {
  fields: [
    { name: "price", type: "number", description: "Espresso price", extractor: { kind: "css", selector: "#price" } },
    { name: "tagline", type: "string", description: "The café's tagline" },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 }, tagline: { kind: "ask_agent" } },
};
const codeDefinition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};
const FILL = { promptTokens: 200, completionTokens: 40 };
const TAGLINE = "Coffee, done right";

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);
/** "Now" for the prune: 10 March, 12:00 UTC. Retention 7 days → runs before 3 March 12:00 may go. */
const NOW = at("2026-03-10T12:00:00Z");
const RETENTION_DAYS = 7;
const CUTOFF = new Date(NOW.getTime() - RETENTION_DAYS * DAY);

let t: TTestDb;
let site: TFixtureSite;
let models: TModelServer;
let userId: string;
let rival: string;
let shop: string;

beforeAll(async () => {
  [t, site, models] = await Promise.all([createTestDb(), startFixtureSite(), startModelServer()]);
  models.setRecordings([
    {
      name: "fill",
      match: { schemaName: "tracker_record" },
      response: { json: { tagline: TAGLINE, notable_signals: [] }, usage: FILL },
    },
  ]);
  site.setPage("/rival", { body: page("3.00", TAGLINE) });
  site.setPage("/shop", { body: `<main><span id="price">10</span></main>` });
  const created = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor("/rival") },
    definition: modelDefinition,
  });
  userId = created.userId;
  rival = created.tracker.id;
  shop = (
    await createActiveTracker(t.db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/shop") },
      definition: codeDefinition,
    })
  ).tracker.id;
});
afterAll(async () => {
  await Promise.all([t?.close(), site?.close(), models?.close()]);
});

const options = (when: Date): TRefreshOptions => {
  const model = fixtureModel(models.url);
  return {
    trigger: "manual",
    models: { filler: model, judge: model },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
    maxModelRetries: 0,
    now: () => when,
  };
};

/** A real refresh at `when`; its run row is dated `when` too (the database stamps createdAt with its own clock). */
async function refreshAt(trackerId: string, when: Date, db: TDb = t.db) {
  const result = await refreshTracker(db, trackerId, options(when));
  await db.refreshRun.update({ where: { id: result.runId }, data: { createdAt: when } });
  return result;
}

/** `count` refreshes of an unchanged page, a minute apart from `from`. */
async function unchangedAt(trackerId: string, from: string, count: number, db: TDb = t.db) {
  for (let i = 0; i < count; i++) {
    const result = await refreshAt(trackerId, new Date(at(from).getTime() + i * 60_000), db);
    expect(result).toMatchObject({ status: "completed", outcome: "unchanged" });
  }
}

/** Everything a person sees that must not change when runs are pruned. */
async function observable() {
  const [timeline, series, runsLog, usageFeb, usageMar, tokensFeb, tokensMar] = await Promise.all([
    queryTimeline(t.db, { trackerId: rival, limit: 100 }),
    getNumericSeries(t.db, { userId, trackerId: rival }),
    listRefreshRuns(t.db, { userId, trackerId: rival, limit: 100 }),
    getUsageThisMonth(t.db, { userId, now: at("2026-02-27T00:00:00Z") }),
    getUsageThisMonth(t.db, { userId, now: NOW }),
    monthlyTokensSpent(t.db, { userId, now: at("2026-02-27T00:00:00Z") }),
    monthlyTokensSpent(t.db, { userId, now: NOW }),
  ]);
  const shopTimeline = await queryTimeline(t.db, { trackerId: shop, limit: 100 });
  return { timeline, shopTimeline, series, runsLog, usageFeb, usageMar, tokensFeb, tokensMar };
}

describe("pruneRefreshRuns", () => {
  it("aggregates and deletes old unchanged and skipped runs; timeline, charts, runs log and usage are unchanged", async () => {
    // 24 Feb: the baseline and two unchanged checks; the shop's baseline and three.
    expect((await refreshAt(rival, at("2026-02-24T09:00:00Z"))).outcome).toBe("baseline");
    await unchangedAt(rival, "2026-02-24T10:00:00Z", 2);
    expect((await refreshAt(shop, at("2026-02-24T09:30:00Z"))).outcome).toBe("baseline");
    await unchangedAt(shop, "2026-02-24T11:00:00Z", 3);
    // 25 Feb: three unchanged, then a failure (kept), then unchanged again.
    await unchangedAt(rival, "2026-02-25T08:00:00Z", 3);
    site.setPage("/rival", { status: 500, body: "down" });
    expect((await refreshAt(rival, at("2026-02-25T12:00:00Z"))).status).toBe("failed");
    site.setPage("/rival", { body: page("3.00", TAGLINE) });
    await unchangedAt(rival, "2026-02-25T13:00:00Z", 1);
    // 26 Feb: two refreshes at once — one checks, the other is skipped (in flight).
    site.setPage("/rival", { body: page("3.00", TAGLINE), delayMs: 300 });
    const when = at("2026-02-26T09:00:00Z");
    const pair = await Promise.all([refreshAt(rival, when), refreshAt(rival, when)]);
    expect(pair.map((r) => r.status).sort()).toEqual(["completed", "skipped"]);
    site.setPage("/rival", { body: page("3.00", TAGLINE) });
    // 28 Feb: a material price change, then unchanged.
    site.setPage("/rival", { body: page("4.00", TAGLINE) });
    expect((await refreshAt(rival, at("2026-02-28T09:00:00Z"))).outcome).toBe("material");
    await unchangedAt(rival, "2026-02-28T10:00:00Z", 2);
    // 1 Mar: the stored hash is from an older page format → one re-fill with a model call, outcome unchanged.
    await t.db.entityCurrentState.updateMany({ where: { entity: { trackerId: rival } }, data: { contentHash: "old" } });
    const rehashed = await refreshAt(rival, at("2026-03-01T09:00:00Z"));
    expect(rehashed).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 1 });
    // Its hash was new, so it linked what it saw (docs/replay.md) and run retention keeps it while it does
    // (tests/integration/capture-retention.test.ts). Here: as if capture retention had unlinked it, so it is an
    // unchanged check like any other and its tokens go into the day's sums.
    const rehashedRun = await t.db.refreshRun.findUniqueOrThrow({ where: { id: rehashed.runId } });
    expect(rehashedRun.captureId).not.toBeNull();
    await t.db.refreshRun.update({ where: { id: rehashed.runId }, data: { captureId: null } });
    await unchangedAt(rival, "2026-03-01T10:00:00Z", 1);
    await unchangedAt(shop, "2026-03-01T10:00:00Z", 2);
    // 2 Mar: noise (price +1.25%), then unchanged.
    site.setPage("/rival", { body: page("4.05", TAGLINE) });
    expect((await refreshAt(rival, at("2026-03-02T09:00:00Z"))).outcome).toBe("noise");
    await unchangedAt(rival, "2026-03-02T10:00:00Z", 2);
    // 3 Mar: one check just before the cutoff (12:00), one just after.
    await unchangedAt(rival, "2026-03-03T11:59:00Z", 1);
    await unchangedAt(rival, "2026-03-03T12:01:00Z", 1);
    // 8 Mar, inside the retention period: material, then unchanged.
    site.setPage("/rival", { body: page("5.00", TAGLINE) });
    expect((await refreshAt(rival, at("2026-03-08T09:00:00Z"))).outcome).toBe("material");
    await unchangedAt(rival, "2026-03-08T10:00:00Z", 2);

    const before = await observable();
    const expected = await expectedDayStats(t.db, CUTOFF);
    // The fixture is worth testing: two trackers, several days on both sides of a month, skipped runs, model tokens.
    expect(new Set(expected.stats.map((s) => s.trackerId))).toEqual(new Set([rival, shop]));
    expect(expected.stats.map((s) => s.day)).toEqual(
      expect.arrayContaining(["2026-02-24", "2026-02-25", "2026-02-26", "2026-03-01", "2026-03-03"]),
    );
    expect(expected.stats.reduce((n, s) => n + s.skipped, 0)).toBe(1);
    expect(expected.stats.reduce((n, s) => n + s.inputTokens + s.outputTokens, 0)).toBe(
      FILL.promptTokens + FILL.completionTokens,
    );
    expect(expected.stats.every((s) => s.requests > 0 || s.skipped > 0)).toBe(true);
    const allBefore = await t.db.refreshRun.findMany({ orderBy: { id: "asc" } });
    const recentBefore = allBefore.filter((r) => r.createdAt >= CUTOFF);
    const kept = allBefore.filter((r) => !expected.runIds.has(r.id));
    expect(kept.map((r) => r.outcome ?? r.status)).toEqual(
      expect.arrayContaining(["baseline", "material", "noise", "failed"]),
    );
    const prunedCalls = await t.db.capabilityCall.count({ where: { runId: { in: [...expected.runIds] } } });
    expect(prunedCalls).toBeGreaterThan(0);

    // Small batches: several statements, and days that span batches are added to, not overwritten.
    const result = await pruneRefreshRuns(t.db, { now: NOW, retentionDays: RETENTION_DAYS, batchSize: 4 });
    expect(result).toMatchObject({ runs: expected.runIds.size, done: true, vacuumed: true });
    expect(result.batches).toBeGreaterThan(3);

    expect(await storedDayStats(t.db)).toEqual(expected.stats);
    const allAfter = await t.db.refreshRun.findMany({ orderBy: { id: "asc" } });
    expect(allAfter).toEqual(kept);
    expect(allAfter.filter((r) => r.createdAt >= CUTOFF)).toEqual(recentBefore);
    expect(await t.db.capabilityCall.count({ where: { runId: { in: [...expected.runIds] } } })).toBe(0);
    expect(await t.db.capabilityCall.count({ where: { runId: { in: kept.map((r) => r.id) } } })).toBeGreaterThan(0);

    const after = await observable();
    expect(after.timeline).toEqual(before.timeline);
    expect(after.shopTimeline).toEqual(before.shopTimeline);
    expect(after.series).toEqual(before.series);
    expect(after.runsLog).toEqual(before.runsLog.filter((r) => !expected.runIds.has(r.id)));
    expect(after.runsLog.map((r) => r.outcome ?? r.status)).toEqual(
      expect.arrayContaining(["baseline", "material", "noise", "failed"]),
    );
    expect(after.usageFeb).toEqual(before.usageFeb);
    expect(after.usageMar).toEqual(before.usageMar);
    expect(after.tokensFeb).toBe(before.tokensFeb);
    expect(after.tokensMar).toBe(before.tokensMar);
    expect(before.tokensMar).toBeGreaterThan(0);

    // The runs log's older part: the pruned days, newest first, on tRPC and in the API's runs response.
    const rivalDays = expected.stats
      .filter((d) => d.trackerId === rival)
      .map((d) => ({
        day: d.day,
        unchanged: d.unchanged,
        skipped: d.skipped,
        modelCalls: d.modelCalls,
        tokens: d.inputTokens + d.outputTokens,
      }))
      .reverse();
    const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
    const api = createCaller(testTrpcContext(t.db, user));
    expect(await api.tracker.prunedRunDays({ trackerId: rival })).toEqual(rivalDays);
    const token = (await createApiToken(t.db, { userId, name: "retention" })).token;
    const rest = await handleRestRequest(
      new Request(`http://app/api/v1/trackers/${rival}/runs?limit=100`, {
        headers: { authorization: `Bearer ${token}` },
      }),
      { db: t.db },
    );
    expect(rest.status).toBe(200);
    const body = await rest.json();
    expect(body.prunedDays).toEqual(rivalDays);
    expect(body.runs.map((r: { id: string }) => r.id)).toEqual(after.runsLog.map((r) => r.id));

    // Again: nothing left to prune, nothing counted twice.
    expect(await pruneRefreshRuns(t.db, { now: NOW, retentionDays: RETENTION_DAYS })).toMatchObject({ runs: 0 });
    expect(await storedDayStats(t.db)).toEqual(expected.stats);

    // A week later the 3 March 12:01 check and the 8 March ones go too, added to the days already there.
    const later = new Date(NOW.getTime() + 7 * DAY);
    const second = await expectedDayStats(t.db, new Date(later.getTime() - RETENTION_DAYS * DAY));
    expect(second.stats.find((s) => s.day === "2026-03-03")).toMatchObject({ unchanged: 1 });
    await pruneRefreshRuns(t.db, { now: later, retentionDays: RETENTION_DAYS });
    const both = addDayStats(expected.stats, second.stats);
    expect(both.find((s) => s.trackerId === rival && s.day === "2026-03-03")).toMatchObject({ unchanged: 2 });
    expect(await storedDayStats(t.db)).toEqual(both);
    const finalView = await observable();
    expect(finalView.timeline).toEqual(before.timeline);
    expect(finalView.series).toEqual(before.series);
    expect(finalView.usageFeb).toEqual(before.usageFeb);
    expect(finalView.usageMar).toEqual(before.usageMar);
    expect(finalView.tokensMar).toBe(before.tokensMar);
  }, 120_000);

  it("keeps a run the timeline references whatever its outcome says", async () => {
    const { tracker } = await createActiveTracker(t.db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/shop") },
      definition: codeDefinition,
    });
    const baseline = await refreshAt(tracker.id, at("2026-01-05T09:00:00Z"));
    // An old row that says "unchanged" but carries a timeline entry (no refresh writes this; retention must not care).
    await t.db.refreshRun.update({ where: { id: baseline.runId }, data: { outcome: "unchanged" } });
    await pruneRefreshRuns(t.db, { now: NOW, retentionDays: RETENTION_DAYS });
    expect(await t.db.refreshRun.count({ where: { id: baseline.runId } })).toBe(1);
    expect((await queryTimeline(t.db, { trackerId: tracker.id })).items).toHaveLength(1);
  });
});

describe("disk use", () => {
  it("an unchanged refresh leaves ~no lasting growth once pruned (freed space is reused)", async () => {
    // A fresh database, so the first round's growth is not hidden by space earlier tests freed.
    const fresh = await createTestDb();
    try {
      const { tracker } = await createActiveTracker(fresh.db, {
        capability: "web.scrape",
        capabilityInput: { url: site.urlFor("/shop") },
        definition: codeDefinition,
      });
      const size = async () => {
        const [row] = await fresh.db.$queryRaw<{ bytes: bigint }[]>`
          SELECT pg_total_relation_size('"RefreshRun"') + pg_total_relation_size('"CapabilityCall"')
            + pg_total_relation_size('"RunDailyStat"') AS "bytes"`;
        return Number(row?.bytes ?? 0);
      };
      const PER_ROUND = 30;
      await refreshAt(tracker.id, at("2026-01-10T00:00:00Z"), fresh.db);
      const kept: number[] = [];
      let unpruned = 0;
      for (let round = 0; round < 4; round++) {
        const start = await size();
        await unchangedAt(tracker.id, `2026-01-${String(11 + round).padStart(2, "0")}T00:00:00Z`, PER_ROUND, fresh.db);
        if (round === 0) unpruned = (await size()) - start;
        await pruneRefreshRuns(fresh.db, { now: NOW, retentionDays: RETENTION_DAYS });
        kept.push((await size()) - start);
      }
      const perRefresh = (bytes: number) => `${Math.round(bytes / PER_ROUND)} B`;
      console.info(
        `retention: ${perRefresh(unpruned)} per unchanged refresh unpruned; once pruned, rounds of ${PER_ROUND}: ${kept
          .map(perRefresh)
          .join(", ")} per refresh`,
      );
      // Unpruned, a round takes several 8 KiB pages; once pruned, later rounds reuse the space earlier ones freed (the
      // first also creates the free-space maps): at most one page each, for the day's RunDailyStat row.
      const PAGE = 8192;
      expect(unpruned).toBeGreaterThan(3 * PAGE);
      for (const g of kept.slice(1)) expect(g).toBeLessThanOrEqual(PAGE);
    } finally {
      await fresh.close();
    }
  }, 120_000);
});

describe("the schedule's hooks", () => {
  it("prune at most once an hour per pruner (injected clock), one at a time, and never throw", async () => {
    const calls: string[] = [];
    const log: TLogger = {
      debug: () => {},
      info: (msg) => calls.push(msg),
      warn: (msg) => calls.push(msg),
      error: (msg) => calls.push(msg),
      child: () => log,
    };
    const pruner = createRunPruner({ retentionDays: RETENTION_DAYS, log });
    const t0 = at("2026-04-01T00:00:00Z");
    const plus = (minutes: number) => ({ now: new Date(t0.getTime() + minutes * 60_000) });
    expect(await pruner.maybePrune(t.db, plus(0))).toMatchObject({ runs: expect.any(Number) });
    expect(await pruner.maybePrune(t.db, plus(30))).toBeNull();
    expect(await pruner.maybePrune(t.db, plus(59))).toBeNull();
    expect(await pruner.maybePrune(t.db, plus(60))).not.toBeNull();
    // Two passes finishing together: one prune.
    const together = await Promise.all([pruner.maybePrune(t.db, plus(200)), pruner.maybePrune(t.db, plus(200))]);
    expect(together.filter((r) => r !== null)).toHaveLength(1);

    // A backlog (more than one budgeted prune's worth): the next prune may follow after 5 minutes, not an hour.
    const { tracker } = await createActiveTracker(t.db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/shop") },
      definition: codeDefinition,
    });
    await refreshAt(tracker.id, at("2026-03-01T00:00:00Z"));
    await unchangedAt(tracker.id, "2026-03-01T01:00:00Z", 3);
    const stepwise = createRunPruner({ retentionDays: RETENTION_DAYS, batchSize: 1, budgetMs: 0, log });
    expect(await stepwise.maybePrune(t.db, plus(0))).toMatchObject({ runs: 1, done: false });
    expect(await stepwise.maybePrune(t.db, plus(4))).toBeNull();
    expect(await stepwise.maybePrune(t.db, plus(5))).toMatchObject({ runs: 1, done: false });
    expect(await stepwise.maybePrune(t.db, plus(10))).toMatchObject({ runs: 1, done: false });
    // The last one finds fewer than a batch: done, and the hour applies again.
    expect(await stepwise.maybePrune(t.db, plus(15))).toMatchObject({ runs: 0, done: true });
    expect(await stepwise.maybePrune(t.db, plus(20))).toBeNull();
    expect(await stepwise.maybePrune(t.db, plus(75))).not.toBeNull();
    expect((await t.db.runDailyStat.findMany({ where: { trackerId: tracker.id } })).map((s) => s.unchanged)).toEqual([
      3,
    ]);

    // A database that fails: logged, not thrown; tried again an hour later, not before.
    const broken = await createTestDb();
    await broken.close();
    const failing = createRunPruner({ retentionDays: RETENTION_DAYS, log });
    expect(await failing.maybePrune(broken.db, plus(0))).toBeNull();
    expect(calls).toContain("pruning refresh runs failed");
    const failures = () => calls.filter((c) => c === "pruning refresh runs failed").length;
    expect(await failing.maybePrune(broken.db, plus(10))).toBeNull();
    expect(failures()).toBe(1);
    await failing.maybePrune(broken.db, plus(61));
    expect(failures()).toBe(2);
  });

  it("the cron route prunes after its pass", async () => {
    const { tracker } = await createActiveTracker(t.db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/shop") },
      definition: codeDefinition,
    });
    // Real clock: the cron route prunes with the process's pruner, `now` and RUN_RETENTION_DAYS (14).
    const old = new Date(Date.now() - 30 * DAY);
    await refreshAt(tracker.id, old);
    const checkedAt = new Date(old.getTime() + 60_000);
    const unchanged = await refreshAt(tracker.id, checkedAt);
    expect(unchanged.outcome).toBe("unchanged");
    await t.db.tracker.update({ where: { id: tracker.id }, data: { nextRunAt: new Date(Date.now() + DAY) } });
    const response = await handleCronRefresh(
      new Request("http://app/api/cron/refresh", { headers: { authorization: "Bearer s" } }),
      { db: t.db, secret: "s", budgetMs: 5000, concurrency: 1 },
    );
    expect(response.status).toBe(200);
    expect(await t.db.refreshRun.count({ where: { id: unchanged.runId } })).toBe(0);
    const stat = await t.db.runDailyStat.findUniqueOrThrow({
      where: {
        trackerId_day: { trackerId: tracker.id, day: new Date(`${checkedAt.toISOString().slice(0, 10)}T00:00:00Z`) },
      },
    });
    expect(stat.unchanged).toBe(1);
  });
});

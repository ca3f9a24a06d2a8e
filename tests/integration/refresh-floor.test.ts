import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { createHostGate } from "@/server/lib/host-gate";
import { setHostGate } from "@/server/lib/host-gate-instance";
import { runDueRefreshes } from "@/server/triggers";
import { countedOn } from "../bench/sql-counter";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";

/**
 * Issue "Refresh at the floor": an unchanged page costs one read and one write — counted here as the
 * statements the Prisma adapter sends to PGlite — and a refresh that meets another in flight is recorded
 * with its answer, so its idempotency key replays without a fetch.
 */

const definition = cssPriceDefinition(0.05);

let t: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  // Statements are counted here, not politeness: the one fixture host stands for many (docs/scheduling.md), so its
  // gap between requests would keep the cron pass's writes from sharing a batch.
  setHostGate(createHostGate({ maxInFlight: 64, minGapMs: 0, maxWaitMs: 60_000 }));
});
afterAll(async () => {
  setHostGate(undefined);
  await site?.close();
  await t?.close();
});

const options = (extra: Partial<TRefreshOptions> = {}): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
  ...extra,
});

async function trackerAt(path: string, price: string) {
  site.setPage(path, { body: priceBody(price) });
  const { tracker } = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition,
  });
  return tracker.id;
}

/** Runs `work` and returns what the database was sent meanwhile. */
const counted = <T>(work: () => Promise<T>) => countedOn(t.pglite, work);

describe("statements per refresh", () => {
  it("an unchanged page: one read and one write, no transaction; a changed page too, its writes in that one statement", async () => {
    const trackerId = await trackerAt("/floor", "$10.00");
    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("baseline");

    site.setPage("/floor", { body: priceBody("$10.00") }); // byte-different (nonce), same document
    const unchanged = await counted(() => refreshTracker(t.db, trackerId, options()));
    expect(unchanged.value).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 0 });
    expect(unchanged.statements).toBeLessThanOrEqual(2);
    expect(unchanged.transactions).toBe(0);
    // The one write recorded the run, its ledger row and the stamp.
    const run = await t.db.refreshRun.findUniqueOrThrow({ where: { id: unchanged.value.runId } });
    expect(run).toMatchObject({ status: "completed", outcome: "unchanged" });
    expect(await t.db.capabilityCall.count({ where: { runId: run.id } })).toBe(1);
    const state = await t.db.entityCurrentState.findFirstOrThrow({ where: { entity: { trackerId } } });
    expect(state.lastCheckedAt.getTime()).toBe(run.finishedAt?.getTime());
    const tracker = await t.db.tracker.findUniqueOrThrow({ where: { id: trackerId } });
    expect(tracker.leaseToken).toBeNull();
    expect(tracker.nextRunAt?.getTime()).toBeGreaterThan(run.finishedAt?.getTime() ?? 0);

    site.setPage("/floor", { body: priceBody("$20.00") });
    const changed = await counted(() => refreshTracker(t.db, trackerId, options()));
    expect(changed.value).toMatchObject({ status: "completed", outcome: "material" });
    // The lease read (with the accepted record), then ONE fenced statement: run + ledger, change row + its
    // outbox row, the new state and the capture — no transaction, no read-back.
    expect(changed.transactions).toBe(0);
    expect(changed.statements).toBeLessThanOrEqual(2);
    const changedRun = await t.db.refreshRun.findUniqueOrThrow({ where: { id: changed.value.runId } });
    expect(changedRun.captureId).not.toBeNull();
    const change = await t.db.entityChange.findFirstOrThrow({ where: { runId: changedRun.id } });
    expect(change).toMatchObject({ materiality: "material", trackerId });
    expect(change.capturedAt.getTime()).toBe(changedRun.finishedAt?.getTime());
    expect(await t.db.changeOutbox.count({ where: { changeId: change.id } })).toBe(1);
    const after = await t.db.entityCurrentState.findFirstOrThrow({ where: { entity: { trackerId } } });
    expect(after.contentHash).not.toBe(state.contentHash);
    expect(after.lastCheckedAt.getTime()).toBe(changedRun.finishedAt?.getTime());
  });

  it("a 304 (validators sent, page not modified): the same floor, one read and one write", async () => {
    // docs/refresh.md "Conditional requests": nothing downloaded or parsed, and no statement more than unchanged.
    site.setPage("/floor-304", { body: priceBody("$10.00"), etag: '"floor"' });
    const { tracker } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/floor-304") },
      definition,
    });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("baseline");
    const notModified = await counted(() => refreshTracker(t.db, tracker.id, options()));
    expect(notModified.value).toMatchObject({
      outcome: "unchanged",
      summary: "no change (not modified)",
      modelCalls: 0,
    });
    expect(site.requests.at(-1)).toMatchObject({ path: "/floor-304", status: 304 });
    expect(notModified.statements).toBeLessThanOrEqual(2);
    expect(notModified.transactions).toBe(0);
  });

  it("the cron path: the claim is the read, and unchanged trackers' writes share statements", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await trackerAt(`/cron-floor-${i}`, `$${i + 1}.00`));
    const pass = () =>
      runDueRefreshes(t.db, { trigger: "cron", concurrency: 3, budgetMs: 30_000, refreshOptions: options() });
    await t.db.tracker.updateMany({ where: { status: "active" }, data: { nextRunAt: new Date(0) } });
    await t.db.tracker.updateMany({ where: { id: { notIn: ids } }, data: { nextRunAt: null } });
    expect((await pass()).outcomes).toEqual({ baseline: 6 });

    await t.db.tracker.updateMany({ where: { id: { in: ids } }, data: { nextRunAt: new Date(0) } });
    const second = await counted(pass);
    expect(second.value.outcomes).toEqual({ unchanged: 6 });
    const claims = second.sent.filter((sql) => /FOR UPDATE SKIP LOCKED/.test(sql)).length;
    // The lanes move on while their writes wait in the pass's batch (final-write-batch.ts): fewer writes than runs.
    expect(second.statements - claims).toBeLessThanOrEqual(3);
    expect(second.statements - claims).toBeGreaterThanOrEqual(1);
    expect(claims).toBeLessThanOrEqual(4); // batches of ≤ 3, and the empty claim that ends the pass
    expect(second.transactions).toBe(0);
    // ...and every check was written as its own statement would have written it: counted on the tracker's day
    // (docs/refresh.md "Unchanged checks are counted, not stored": no run row, no ledger row), stamp, next run.
    for (const id of ids) {
      expect(await t.db.refreshRun.count({ where: { trackerId: id, outcome: "unchanged" } })).toBe(0);
      const days = await t.db.runDailyStat.findMany({ where: { trackerId: id } });
      expect(days).toHaveLength(1);
      expect(days[0]).toMatchObject({ unchanged: 1, capabilityCalls: 1, requests: 1, skipped: 0, modelCalls: 0 });
      expect(Number(days[0]?.bytes)).toBeGreaterThan(0);
      const state = await t.db.entityCurrentState.findFirstOrThrow({ where: { entity: { trackerId: id } } });
      const tracker = await t.db.tracker.findUniqueOrThrow({ where: { id } });
      expect(state.lastCheckedAt.getTime()).toBe(tracker.lastRunAt?.getTime());
      expect(tracker.leaseToken).toBeNull();
      expect(tracker.nextRunAt?.getTime()).toBeGreaterThan(tracker.lastRunAt?.getTime() ?? 0);
    }

    // One lane: it goes on while its writes wait, so all six wait in one batch, sent when the pass ends.
    await t.db.tracker.updateMany({ where: { id: { in: ids } }, data: { nextRunAt: new Date(0) } });
    const oneLane = await counted(() =>
      runDueRefreshes(t.db, {
        trigger: "cron",
        concurrency: 1,
        budgetMs: 30_000,
        finalWriteWaitMs: 60_000,
        refreshOptions: options(),
      }),
    );
    expect(oneLane.value.outcomes).toEqual({ unchanged: 6 });
    const oneLaneClaims = oneLane.sent.filter((sql) => /FOR UPDATE SKIP LOCKED/.test(sql)).length;
    expect(oneLane.statements - oneLaneClaims).toBe(1);
  });
});

describe("a refresh that meets one in flight", () => {
  it("with an Idempotency-Key is recorded with its answer; replaying the key returns it without a fetch", async () => {
    const trackerId = await trackerAt("/busy", "$10.00");
    site.setPage("/busy", { body: priceBody("$10.00"), delayMs: 400 });
    const first = refreshTracker(t.db, trackerId, options());
    await expect
      .poll(async () => (await t.db.tracker.findUniqueOrThrow({ where: { id: trackerId } })).leaseToken)
      .not.toBeNull();

    const hits = () => site.requests.filter((r) => r.path === "/busy").length;
    const keyed = await refreshTracker(t.db, trackerId, options({ idempotencyKey: "client-retry-1" }));
    expect(keyed).toMatchObject({ status: "skipped", outcome: "in_flight", replayed: false });
    expect((await first).outcome).toBe("baseline");

    const replay = await refreshTracker(t.db, trackerId, options({ idempotencyKey: "client-retry-1" }));
    expect(replay).toEqual({ ...keyed, replayed: true });
    expect(hits()).toBe(1); // only the refresh in flight fetched the page
    const runs = await t.db.refreshRun.findMany({ where: { trackerId }, orderBy: { createdAt: "asc" } });
    expect(runs.map((r) => r.status).sort()).toEqual(["completed", "skipped"]);
    expect(runs.every((r) => r.finishedAt !== null)).toBe(true);
  });

  it("a live run keeps its short lease by renewing it: nobody takes over a slow page", async () => {
    const trackerId = await trackerAt("/slow", "$10.00");
    site.setPage("/slow", { body: priceBody("$10.00"), delayMs: 600 });
    const slow = refreshTracker(t.db, trackerId, options({ leaseMs: 150 }));
    await new Promise((r) => setTimeout(r, 350)); // > 2 lease lengths
    const other = await refreshTracker(t.db, trackerId, options({ leaseMs: 150 }));
    expect(other).toMatchObject({ status: "skipped", outcome: "in_flight" });
    expect(await slow).toMatchObject({ status: "completed", outcome: "baseline" });
  });
});

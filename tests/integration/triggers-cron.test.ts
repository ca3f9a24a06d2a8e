import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAILING_AFTER, listTrackerSummaries, setTrackerStatus } from "@/server/trackers";
import { handleCronRefresh, runDueRefreshes } from "@/server/triggers";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/** The cron route and the claim loop on embedded PGlite against the local fixture site (rules mode). */

const page = (price: string) =>
  `<!doctype html><html><head><title>Shop</title></head><body><main><p>Price <span id="price">${price}</span></p></main></body></html>`;

const definition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

let db: TTestDb;
let site: TFixtureSite;
const SECRET = "test-cron-secret";

beforeAll(async () => {
  db = await createTestDb();
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
  await db?.close();
});

const refreshOptions = () => ({
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
});

async function tracker(path: string) {
  site.setPage(path, { body: page("10") });
  const { tracker, userId } = await createActiveTracker(db.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition,
  });
  return { id: tracker.id, userId };
}

const cron = (headers: Record<string, string> = {}, secret: string | null = SECRET) =>
  handleCronRefresh(new Request("http://app/api/cron/refresh", { method: "POST", headers }), {
    db: db.db,
    secret: secret ?? undefined,
    budgetMs: 20_000,
    concurrency: 2,
    refreshOptions: refreshOptions(),
  });

describe("/api/cron/refresh", () => {
  it("refuses without the secret (401), with a wrong one (401), and when CRON_SECRET is unset (503)", async () => {
    const due = await tracker("/auth");
    expect((await cron()).status).toBe(401);
    expect((await cron({ authorization: "Bearer nope" })).status).toBe(401);
    const unset = await cron({ authorization: `Bearer ${SECRET}` }, null);
    expect(unset.status).toBe(503);
    expect((await unset.json()).error.message).toMatch(/set CRON_SECRET/);
    // Nothing ran.
    expect(await db.db.refreshRun.count({ where: { trackerId: due.id } })).toBe(0);
    await setTrackerStatus(db.db, { userId: due.userId, trackerId: due.id, status: "archived" });
  });

  it("with the secret runs only due trackers, and returns a summary", async () => {
    const due1 = await tracker("/due1");
    const due2 = await tracker("/due2");
    const later = await tracker("/later");
    const paused = await tracker("/paused");
    await db.db.tracker.update({ where: { id: later.id }, data: { nextRunAt: new Date(Date.now() + 3600_000) } });
    await setTrackerStatus(db.db, { userId: paused.userId, trackerId: paused.id, status: "paused" });

    const response = await cron({ authorization: `Bearer ${SECRET}` });
    expect(response.status).toBe(200);
    const summary = await response.json();
    expect(summary).toMatchObject({ ok: true, claimed: 2, completed: 2, failed: 0, released: 0 });
    expect(summary.outcomes).toEqual({ baseline: 2 });
    expect(new Set(summary.results.map((r: { trackerId: string }) => r.trackerId))).toEqual(
      new Set([due1.id, due2.id]),
    );
    for (const t of [later, paused]) expect(await db.db.refreshRun.count({ where: { trackerId: t.id } })).toBe(0);
    const runs = await db.db.refreshRun.findMany({ where: { trackerId: { in: [due1.id, due2.id] } } });
    expect(runs.map((r) => r.trigger)).toEqual(["cron", "cron"]);
    // Next run moved to the schedule (60 min) plus at most 10% jitter.
    const after = await db.db.tracker.findUniqueOrThrow({ where: { id: due1.id } });
    const ahead = (after.nextRunAt?.getTime() ?? 0) - Date.now();
    expect(ahead).toBeGreaterThan(55 * 60_000);
    expect(ahead).toBeLessThanOrEqual(66 * 60_000 + 1000);

    // A second call right away: nothing is due.
    const again = await (await cron({ authorization: `Bearer ${SECRET}` })).json();
    expect(again).toMatchObject({ claimed: 0, completed: 0 });
    for (const t of [due1, due2, later, paused]) {
      await setTrackerStatus(db.db, { userId: t.userId, trackerId: t.id, status: "archived" });
    }
  });

  it("stops starting refreshes at the budget and hands unstarted claims back", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await tracker(`/budget${i}`)).id);
    site.setPage("/budget0", { body: page("10"), delayMs: 300 });
    const summary = await runDueRefreshes(db.db, {
      trigger: "cron",
      budgetMs: 100,
      concurrency: 1,
      refreshOptions: refreshOptions(),
    });
    // One lane: the first claim takes one tracker; after it the budget is spent.
    expect(summary.budgetExhausted).toBe(true);
    expect(summary.completed + summary.failed).toBe(1);
    const rest = await runDueRefreshes(db.db, {
      trigger: "cron",
      budgetMs: 20_000,
      concurrency: 2,
      refreshOptions: refreshOptions(),
    });
    expect(rest.completed).toBe(2);
    expect(await db.db.refreshRun.count({ where: { trackerId: { in: ids } } })).toBe(3);
    for (const id of ids) await db.db.tracker.update({ where: { id }, data: { status: "archived" } });
  });
});

describe("failure backoff", () => {
  it("a page returning 500 makes the tracker failing after N attempts with the error; it recovers when fixed", async () => {
    const t = await tracker("/flaky");
    let clock = Date.now();
    const now = () => new Date(clock);
    const tick = () =>
      runDueRefreshes(db.db, {
        trigger: "worker",
        budgetMs: 20_000,
        concurrency: 1,
        now,
        refreshOptions: { ...refreshOptions(), now },
      });

    expect((await tick()).outcomes).toEqual({ baseline: 1 });
    site.setPage("/flaky", { status: 500, body: "Internal error" });
    const delays: number[] = [];
    for (let i = 1; i <= FAILING_AFTER; i++) {
      const row = await db.db.tracker.findUniqueOrThrow({ where: { id: t.id } });
      clock = Math.max(clock, row.nextRunAt?.getTime() ?? clock) + 1000; // jump to when it is due
      const summary = await tick();
      expect(summary, JSON.stringify(summary)).toMatchObject({ claimed: 1, failed: 1 });
      const after = await db.db.tracker.findUniqueOrThrow({ where: { id: t.id } });
      delays.push((after.nextRunAt?.getTime() ?? 0) - clock);
      const [summaryRow] = await listTrackerSummaries(db.db, { userId: t.userId, status: "failing" });
      if (i < FAILING_AFTER) expect(summaryRow?.id === t.id).toBe(false);
    }
    // Backoff grows: each retry waits longer than the one before.
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThan(delays[i - 1] ?? 0);
    const failing = (await listTrackerSummaries(db.db, { userId: t.userId, status: "failing" })).find(
      (s) => s.id === t.id,
    );
    expect(failing).toMatchObject({ failing: true, consecutiveFailures: FAILING_AFTER });
    expect(failing?.lastError).toMatch(/500/);

    // Not due before the backoff ends.
    expect((await tick()).claimed).toBe(0);

    site.setPage("/flaky", { body: page("10") });
    const row = await db.db.tracker.findUniqueOrThrow({ where: { id: t.id } });
    clock = (row.nextRunAt?.getTime() ?? clock) + 1000;
    expect(await tick()).toMatchObject({ claimed: 1, completed: 1 });
    const healed = (await listTrackerSummaries(db.db, { userId: t.userId })).find((s) => s.id === t.id);
    expect(healed).toMatchObject({ failing: false, consecutiveFailures: 0, lastError: null });
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { writeRunFinal } from "@/server/intelligence/refresh/run-record";
import { createHostGate } from "@/server/lib/host-gate";
import { setHostGate } from "@/server/lib/host-gate-instance";
import { listPrunedRunDays } from "@/server/trackers/queries/list-pruned-run-days";
import { listRefreshRuns } from "@/server/trackers/queries/list-refresh-runs";
import { getUsageThisMonth } from "@/server/usage";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { leasedTracker, unchangedWrite } from "../helpers/final-writes";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";

/**
 * docs/refresh.md "Unchanged checks are counted, not stored": a scheduled check that finds the page unchanged adds
 * one to its tracker's day (RunDailyStat) in the run's one final write, instead of a run row and a ledger row; every
 * other run keeps its row. Totals (usage, the runs log's days) see every check.
 */

let t: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  // Rows are counted here, not politeness: no gap between requests to the one fixture host.
  setHostGate(createHostGate({ maxInFlight: 8, minGapMs: 0, maxWaitMs: 60_000 }));
});
afterAll(async () => {
  setHostGate(undefined);
  await site?.close();
  await t?.close();
});

const options = (trigger: TRefreshOptions["trigger"], when: Date, extra: Partial<TRefreshOptions> = {}) =>
  ({
    trigger,
    models: { filler: null, judge: null },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
    now: () => when,
    ...extra,
  }) satisfies TRefreshOptions;

async function trackerAt(path: string, price: string) {
  site.setPage(path, { body: priceBody(price) });
  const { tracker } = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition: cssPriceDefinition(0.05),
  });
  return tracker;
}

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

describe("unchanged scheduled checks", () => {
  it("are counted on their tracker's day, with their ledger sums, and leave no run or ledger row", async () => {
    const tracker = await trackerAt("/counted", "$10.00");
    const start = new Date("2026-03-01T22:00:00Z");
    const baseline = await refreshTracker(t.db, tracker.id, options("scheduler", start));
    expect(baseline.outcome).toBe("baseline");

    // Six checks an hour apart, across midnight UTC: three on 1 March, three on 2 March; every trigger of a pass.
    const triggers = ["scheduler", "cron", "worker", "scheduler", "cron", "worker"] as const;
    for (const [i, trigger] of triggers.entries()) {
      site.setPage("/counted", { body: priceBody("$10.00") }); // byte-different (nonce), same document
      const when = new Date(start.getTime() + (i + 1) * 20 * 60_000 + (i >= 3 ? 2 * 60 * 60_000 : 0));
      const result = await refreshTracker(t.db, tracker.id, options(trigger, when));
      expect(result).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 0 });
    }

    const runs = await t.db.refreshRun.findMany({ where: { trackerId: tracker.id } });
    expect(runs.map((r) => r.outcome)).toEqual(["baseline"]);
    expect(await t.db.capabilityCall.count({ where: { run: { trackerId: tracker.id } } })).toBe(1);
    const days = await t.db.runDailyStat.findMany({ where: { trackerId: tracker.id }, orderBy: { day: "asc" } });
    expect(days.map((d) => [d.day.toISOString().slice(0, 10), d.unchanged, d.capabilityCalls, d.requests])).toEqual([
      ["2026-03-01", 3, 3, 3],
      ["2026-03-02", 3, 3, 3],
    ]);
    expect(days.every((d) => Number(d.bytes) > 0)).toBe(true);
    // The tracker's own bookkeeping moved with every check.
    const after = await t.db.tracker.findUniqueOrThrow({ where: { id: tracker.id } });
    expect(after.lastRunAt?.getTime()).toBeGreaterThan(start.getTime() + 2 * 60 * 60_000);

    // The person sees them: the runs log keeps the baseline and counts the checks per day; usage counts all seven.
    const log = await listRefreshRuns(t.db, { userId: tracker.userId, trackerId: tracker.id });
    expect(log.map((r) => r.outcome)).toEqual(["baseline"]);
    const counted = await listPrunedRunDays(t.db, { userId: tracker.userId, trackerId: tracker.id });
    expect(counted.map((d) => [d.day, d.unchanged])).toEqual([
      ["2026-03-02", 3],
      ["2026-03-01", 3],
    ]);
    const usage = await getUsageThisMonth(t.db, { userId: tracker.userId, now: day("2026-03-15") });
    expect(usage.trackers.find((u) => u.trackerId === tracker.id)?.refreshes).toBe(7);
  });

  it("a person's or client's refresh, a change and a failure keep their run rows", async () => {
    const tracker = await trackerAt("/kept", "$20.00");
    const at = (minutes: number) => new Date(Date.parse("2026-04-01T10:00:00Z") + minutes * 60_000);
    await refreshTracker(t.db, tracker.id, options("cron", at(0)));
    site.setPage("/kept", { body: priceBody("$20.00") });
    const manual = await refreshTracker(t.db, tracker.id, options("manual", at(1)));
    site.setPage("/kept", { body: priceBody("$20.00") });
    const api = await refreshTracker(t.db, tracker.id, options("api", at(2)));
    site.setPage("/kept", { body: priceBody("$20.00") });
    const keyed = await refreshTracker(t.db, tracker.id, options("api", at(3), { idempotencyKey: "k-1" }));
    site.setPage("/kept", { body: priceBody("$29.00") });
    const changed = await refreshTracker(t.db, tracker.id, options("cron", at(4)));
    site.setPage("/kept", { status: 500, body: "down" });
    const failed = await refreshTracker(t.db, tracker.id, options("cron", at(5)));
    expect([manual, api, keyed].map((r) => r.outcome)).toEqual(["unchanged", "unchanged", "unchanged"]);
    expect(changed.outcome).toBe("material");
    expect(failed.status).toBe("failed");

    const ids = [manual, api, keyed, changed, failed].map((r) => r.runId);
    const kept = await t.db.refreshRun.findMany({ where: { id: { in: ids } }, include: { capabilityCalls: true } });
    expect(kept).toHaveLength(5);
    expect(kept.every((r) => r.capabilityCalls.length === 1)).toBe(true);
    expect(await t.db.runDailyStat.count({ where: { trackerId: tracker.id } })).toBe(0);
  });

  it("a check whose lease was lost counts nothing", async () => {
    // The final write as the refresh composes it (the tracker-store's fence on the lease), marked counted.
    const leased = await leasedTracker(t.db);
    const lost = { ...unchangedWrite(leased, { token: "someone-else:lease" }), countOnly: true };
    expect((await writeRunFinal(t.db, lost)).held).toBe(false);
    expect(await t.db.runDailyStat.count({ where: { trackerId: leased.trackerId } })).toBe(0);

    const held = { ...unchangedWrite(leased), countOnly: true };
    expect((await writeRunFinal(t.db, held)).held).toBe(true);
    const stat = await t.db.runDailyStat.findUniqueOrThrow({
      where: {
        trackerId_day: { trackerId: leased.trackerId, day: day(held.run.startedAt.toISOString().slice(0, 10)) },
      },
    });
    expect([stat.unchanged, stat.capabilityCalls, stat.requests, Number(stat.bytes)]).toEqual([1, 1, 1, 100]);
    expect(await t.db.refreshRun.count({ where: { trackerId: leased.trackerId } })).toBe(0);
  });

  it("forty unchanged checks on one day add one row and no runs", async () => {
    const tracker = await trackerAt("/many", "$40.00");
    const start = new Date("2026-06-01T00:00:00Z");
    await refreshTracker(t.db, tracker.id, options("cron", start));
    const rowsBefore = await t.db.refreshRun.count();
    for (let i = 1; i <= 40; i++) {
      site.setPage("/many", { body: priceBody("$40.00") });
      await refreshTracker(t.db, tracker.id, options("cron", new Date(start.getTime() + i * 30 * 60_000)));
    }
    expect(await t.db.refreshRun.count()).toBe(rowsBefore);
    const stat = await t.db.runDailyStat.findUniqueOrThrow({
      where: { trackerId_day: { trackerId: tracker.id, day: day("2026-06-01") } },
    });
    expect(stat.unchanged).toBe(40);
  });
});

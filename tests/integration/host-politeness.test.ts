import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TRefreshResult } from "@/server/intelligence/refresh";
import { refreshTracker } from "@/server/intelligence/refresh";
import { createHostGate } from "@/server/lib/host-gate";
import { setHostGate } from "@/server/lib/host-gate-instance";
import { getHostActivity } from "@/server/system/get-host-activity";
import { runDueRefreshes } from "@/server/triggers";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";

/**
 * Politeness per host (docs/scheduling.md), through real scheduled refreshes against two local sites (two hosts:
 * the same address, two ports). What a host received is counted on its own side, from the fixture site's request log.
 */

const MAX_IN_FLIGHT = 2;
const MIN_GAP_MS = 250;
/** Each page answers after this long, so a request is in flight at the site for at least this long. */
const PAGE_DELAY_MS = 300;

const definition = cssPriceDefinition(0.05);

let t: TTestDb;
let siteA: TFixtureSite;
let siteB: TFixtureSite;
/** The gate's clock runs with the real one, plus what a test skipped ahead. */
let skippedMs = 0;

beforeAll(async () => {
  t = await createTestDb();
  siteA = await startFixtureSite();
  siteB = await startFixtureSite();
});
afterAll(async () => {
  setHostGate(undefined);
  await siteA?.close();
  await siteB?.close();
  await t?.close();
});
beforeEach(() => {
  skippedMs = 0;
  setHostGate(
    createHostGate({
      maxInFlight: MAX_IN_FLIGHT,
      minGapMs: MIN_GAP_MS,
      maxWaitMs: 20_000,
      clock: {
        now: () => Date.now() + skippedMs,
        setTimeout: (fn, ms) => setTimeout(fn, ms),
        clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      },
    }),
  );
});
afterEach(async () => {
  await t.db.tracker.updateMany({ where: {}, data: { status: "archived", nextRunAt: null } });
});

const refreshOptions = () => ({
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([siteA.url, siteB.url], { timeoutMs: 10_000 }),
});

async function trackerAt(site: TFixtureSite, path: string, price: string) {
  site.setPage(path, { body: priceBody(price), delayMs: PAGE_DELAY_MS });
  const { tracker } = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition,
  });
  return tracker.id;
}

async function passOver(ids: string[], concurrency: number) {
  await t.db.tracker.updateMany({ where: { id: { notIn: ids } }, data: { nextRunAt: null } });
  await t.db.tracker.updateMany({ where: { id: { in: ids } }, data: { nextRunAt: new Date(0) } });
  const results = new Map<string, TRefreshResult>();
  const summary = await runDueRefreshes(t.db, {
    trigger: "cron",
    concurrency,
    budgetMs: 60_000,
    refreshOptions: refreshOptions(),
    onResult: ({ trackerId, result }) => results.set(trackerId, result),
  });
  return { summary, results };
}

/** When each request for these paths reached the site, in ms, in order. */
function arrivals(site: TFixtureSite, prefix: string): number[] {
  return site.requests.filter((r) => r.path.startsWith(prefix)).map((r) => Date.parse(r.receivedAt));
}

describe("politeness per host", { timeout: 90_000 }, () => {
  it("many trackers on one host refreshed at once: never more than the limit in flight, the least gap kept", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await trackerAt(siteA, `/many-${i}`, `$${i + 10}.00`));
    // Warm up first (the page workers start with the first page read), so the pass measured is the gate's alone.
    const warm = await trackerAt(siteB, "/warm-up", "$1.00");
    expect((await passOver([warm], 1)).summary.outcomes).toEqual({ baseline: 1 });
    const started = siteA.requests.length;

    const { summary } = await passOver(ids, 8);
    expect(summary.outcomes).toEqual({ baseline: 12 });

    const at = arrivals(siteA, "/many-");
    expect(at).toHaveLength(12);
    expect(siteA.requests.length - started).toBe(12);
    // A request stays at the site at least PAGE_DELAY_MS, and the gate lets the next one start only once an earlier
    // one has ended: the site never holds a third request that arrived within PAGE_DELAY_MS of the one two before.
    const overlapping = at.map((time, i) => at.slice(0, i).filter((earlier) => earlier > time - PAGE_DELAY_MS).length);
    expect(Math.max(...overlapping) + 1).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    // ...and the limit is used: with 8 lanes, two requests do overlap.
    expect(Math.max(...overlapping) + 1).toBe(MAX_IN_FLIGHT);
    // The least gap: the gate spaces the starts; between a start and its request reaching the site the event loop may
    // be busy for a moment (the embedded database runs on it, and on a loaded machine for longer), so a request that
    // reached the site late makes the gap after it look shorter there — never the two gaps around it together...
    const gaps = at.slice(1).map((time, i) => time - (at[i] as number));
    const pairs = gaps.slice(1).map((gap, i) => gap + (gaps[i] as number));
    expect(Math.min(...pairs)).toBeGreaterThanOrEqual(2 * MIN_GAP_MS - 60);
    // ...but over the pass the site saw no more than one request per gap.
    expect((at.at(-1) as number) - (at[0] as number)).toBeGreaterThanOrEqual(11 * MIN_GAP_MS - 20);
  });

  it("after a 429 with Retry-After: 30 the host's other trackers send nothing until then, another host's proceeds", async () => {
    siteA.setPage("/limited", { status: 429, headers: { "retry-after": "30" }, body: "slow down" });
    const { tracker: limited } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: siteA.urlFor("/limited") },
      definition,
    });
    const onA: string[] = [];
    for (let i = 0; i < 4; i++) onA.push(await trackerAt(siteA, `/held-${i}`, `$${i + 1}.00`));
    const onB = await trackerAt(siteB, "/elsewhere", "$7.00");

    const refused = await refreshTracker(t.db, limited.id, { trigger: "manual", ...refreshOptions() });
    // The host's own 429 is a failure of that tracker, whose backoff is never shorter than the host asked.
    expect(refused.status).toBe("failed");
    expect(refused.error?.code).toBe("RATE_LIMITED");
    const limitedAt = Date.now();
    const limitedRow = await t.db.tracker.findUniqueOrThrow({ where: { id: limited.id } });
    expect(limitedRow.consecutiveFailures).toBe(1);
    expect(limitedRow.nextRunAt?.getTime()).toBeGreaterThanOrEqual(limitedAt + 29_000);
    const sentToA = siteA.requests.length;
    const sentToB = siteB.requests.length;

    const during = await passOver([...onA, onB], 4);
    // Not one request reached the host that asked us to wait...
    expect(siteA.requests.length).toBe(sentToA);
    // ...and its trackers were deferred, not failed: nothing was learnt about their pages.
    expect(during.summary.outcomes).toEqual({ deferred: 4, baseline: 1 });
    for (const id of onA) {
      const result = during.results.get(id);
      expect(result?.status).toBe("skipped");
      expect(result?.outcome).toBe("deferred");
      expect(result?.error).toMatchObject({ code: "RATE_LIMITED", retryable: true });
      // ...and each tracker is told when it may be asked again (30 s after the 429).
      const retryAt = Date.parse(result?.error?.message.match(/after (\S+Z)/)?.[1] ?? "");
      expect(retryAt - limitedAt).toBeGreaterThan(28_000);
      expect(retryAt - limitedAt).toBeLessThanOrEqual(30_000);
    }
    // ...while the tracker on another host went ahead.
    expect(during.results.get(onB)).toMatchObject({ status: "completed", outcome: "baseline" });
    expect(siteB.requests.length).toBe(sentToB + 1);
    // /system shows the host backed off and the one asked (host names to the owner only).
    const shown = getHostActivity({ viewer: { role: "owner" } });
    expect(shown.held?.map((h) => h.host)).toEqual([new URL(siteA.url).host]);
    expect(shown.busiest?.map((h) => h.host)).toContain(new URL(siteB.url).host);
    expect(getHostActivity({ viewer: { role: "member" } })).toMatchObject({ busiest: null, held: null });
    // The deferred trackers keep their failure count (no failing notice can follow) and are due once the host may be
    // asked again, spread over the minute after; the scheduled deferrals are counted on the day, not stored.
    const deferred = await t.db.tracker.findMany({
      where: { id: { in: onA } },
      select: { consecutiveFailures: true, lastError: true, nextRunAt: true, leaseToken: true },
    });
    for (const row of deferred) {
      expect(row).toMatchObject({ consecutiveFailures: 0, lastError: null, leaseToken: null });
      expect(row.nextRunAt?.getTime()).toBeGreaterThanOrEqual(limitedAt + 29_000);
      expect(row.nextRunAt?.getTime()).toBeLessThanOrEqual(limitedAt + 30_000 + 60_000);
    }
    expect(new Set(deferred.map((row) => row.nextRunAt?.getTime())).size).toBeGreaterThan(1);
    expect(await t.db.refreshRun.count({ where: { trackerId: { in: onA } } })).toBe(0);
    const days = await t.db.runDailyStat.findMany({ where: { trackerId: { in: onA } } });
    expect(days.map((d) => [d.skipped, d.unchanged, d.requests])).toEqual(Array(4).fill([1, 0, 0]));

    // A person's Refresh now during the hold is answered at once, deferred with the time, and kept in the runs log.
    const manual = await refreshTracker(t.db, onA[0] as string, { trigger: "manual", ...refreshOptions() });
    expect(manual).toMatchObject({ status: "skipped", outcome: "deferred" });
    expect(manual.summary).toMatch(/^deferred: .* asked us to wait .* after \S+Z/);
    expect(siteA.requests.length).toBe(sentToA);
    expect(await t.db.refreshRun.findUnique({ where: { id: manual.runId } })).toMatchObject({
      status: "skipped",
      outcome: "deferred",
      trigger: "manual",
    });

    // Thirty seconds on, the host is asked again.
    skippedMs = 30_000;
    const after = await passOver(onA, 4);
    expect(after.summary.outcomes).toEqual({ baseline: 4 });
    expect(siteA.requests.length).toBe(sentToA + 4);
  });

  it("a host kept busy past the wait: the waiting tracker is deferred a minute or two, not failed", async () => {
    setHostGate(createHostGate({ maxInFlight: 1, minGapMs: 0, maxWaitMs: 200 }));
    siteA.setPage("/slow", { body: priceBody("$5.00"), delayMs: 1500 });
    const { tracker: slow } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: siteA.urlFor("/slow") },
      definition,
    });
    const waiting = await trackerAt(siteA, "/waiting", "$6.00");
    const first = refreshTracker(t.db, slow.id, { trigger: "manual", ...refreshOptions() });
    await expect.poll(() => siteA.requests.filter((r) => r.path === "/slow").length).toBe(1);
    const before = Date.now();
    const { summary, results } = await passOver([waiting], 1);
    expect(summary.outcomes).toEqual({ deferred: 1 });
    expect(results.get(waiting)?.summary).toMatch(/^deferred: .* is busy with other trackers' requests/);
    expect(siteA.requests.filter((r) => r.path === "/waiting")).toHaveLength(0);
    const row = await t.db.tracker.findUniqueOrThrow({ where: { id: waiting } });
    expect(row.consecutiveFailures).toBe(0);
    expect(row.nextRunAt?.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(row.nextRunAt?.getTime()).toBeLessThanOrEqual(Date.now() + 120_000);
    expect((await first).outcome).toBe("baseline");
  });
});

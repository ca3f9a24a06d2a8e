import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker } from "@/server/intelligence/refresh";
import { createRunPruner, pruneRefreshRuns } from "@/server/retention";
import {
  appendRejudgedChanges,
  getCaptureStats,
  listRunCaptures,
  queryTimeline,
  thinCaptures,
} from "@/server/timeline";
import { getNumericSeries, listRefreshRuns } from "@/server/trackers";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import {
  buildCaptureHistory,
  HISTORY_KEPT,
  HISTORY_NOW,
  HISTORY_RETENTION_DAYS,
  HISTORY_THINNED,
  historyState,
} from "../helpers/capture-history";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig } from "../helpers/trackers";

/**
 * Retention of captures (docs/replay.md, "Captures") on embedded PGlite: every capture a change references and each entity's latest
 * stay, captures seen within CAPTURE_RETENTION_DAYS stay, older ones are thinned to the last of each day per entity;
 * the timeline, charts and runs log read the same, and run retention keeps the runs whose capture is kept.
 */

let t: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  [t, site] = await Promise.all([createTestDb(), startFixtureSite()]);
});
afterAll(async () => {
  await Promise.all([site?.close(), t?.close()]);
});

const thin = (now = HISTORY_NOW, retentionDays = HISTORY_RETENTION_DAYS, batchSize?: number) =>
  thinCaptures(t.db, { now, retentionDays, ...(batchSize ? { batchSize } : {}) });

describe("thinCaptures", () => {
  it("keeps referenced captures, each entity's latest and the last of each old day; the views are unchanged", async () => {
    const history = await buildCaptureHistory(t.db, site, "/thin-main");
    const { trackerId, userId } = history;
    const views = async () => ({
      timeline: await queryTimeline(t.db, { trackerId, limit: 100 }),
      series: await getNumericSeries(t.db, { userId, trackerId }),
      runsLog: await listRefreshRuns(t.db, { userId, trackerId, limit: 100 }),
    });
    const before = await views();
    expect(before.timeline.items.map((e) => e.materiality)).toEqual(["material", "baseline"]);
    const bytesBefore = (await getCaptureStats(t.db, trackerId)).bytes;

    // Everything is younger than a 90-day period: nothing goes.
    expect(await thin(HISTORY_NOW, 90)).toMatchObject({ captures: 0, done: true });
    // 30 days, in batches of one: three statements do the work, the fourth finds nothing.
    const result = await thin(HISTORY_NOW, HISTORY_RETENTION_DAYS, 1);
    expect(result).toMatchObject({ captures: HISTORY_THINNED.length, done: true });
    expect(result.batches).toBe(HISTORY_THINNED.length + 1);

    const after = await historyState(t.db, history);
    expect(after.labels).toEqual([...HISTORY_KEPT].sort());
    // The runs stay; those whose capture went link none now, the others still link theirs (c7 from both of its runs).
    for (const run of history.runs) {
      const expected = run.label && !(HISTORY_THINNED as readonly string[]).includes(run.label);
      expect(after.links.get(run.runId)).toBe(expected ? history.captures[run.label ?? ""] : null);
    }
    expect(result.bytes).toBe(bytesBefore - (await getCaptureStats(t.db, trackerId)).bytes);
    expect(await views()).toEqual(before);
    // Replay's reader now walks the kept captures in run order.
    const listed = await listRunCaptures(t.db, { trackerId });
    expect(listed.inPeriod.map((r) => r.captureId)).toEqual(
      history.runs
        .filter((r) => r.label && !(HISTORY_THINNED as readonly string[]).includes(r.label))
        .map((r) => history.captures[r.label ?? ""]),
    );

    // Idempotent: the next pass (and one a day later) keeps what this one kept.
    expect(await thin()).toMatchObject({ captures: 0, done: true });
    expect(await thin(new Date(HISTORY_NOW.getTime() + 86_400_000))).toMatchObject({ captures: 0 });
    expect((await historyState(t.db, history)).labels).toEqual([...HISTORY_KEPT].sort());

    // Much later, the young ones are old too: 20 June keeps its last (c10, also the latest); c9 goes.
    const later = new Date("2026-09-30T12:00:00Z");
    expect(await thin(later)).toMatchObject({ captures: 1 });
    expect((await historyState(t.db, history)).labels).toEqual(HISTORY_KEPT.filter((l) => l !== "c9").sort());
    expect(await views()).toEqual(before);
  }, 120_000);

  it("keeps each entity's latest capture however old, and skips a tracker a refresh holds", async () => {
    site.setPage("/thin-quiet", { body: `<main><span id="price">$5.00</span></main>` });
    const { tracker } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/thin-quiet") },
      definition: cssPriceDefinition(0.05),
    });
    const at = async (iso: string, price: string) => {
      site.setPage("/thin-quiet", { body: `<main><span id="price">${price}</span></main>` });
      const when = new Date(iso);
      const r = await refreshTracker(t.db, tracker.id, {
        trigger: "manual",
        models: { filler: null, judge: null },
        capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
        now: () => when,
      });
      return (await t.db.refreshRun.findUniqueOrThrow({ where: { id: r.runId } })).captureId;
    };
    const base = await at("2026-01-05T09:00:00Z", "$5.00");
    const a = await at("2026-01-05T10:00:00Z", "$5.05");
    const latest = await at("2026-01-05T11:00:00Z", "$5.10");
    // A refresh holds the tracker (its lease runs until after "now"): its captures wait.
    await t.db.tracker.update({
      where: { id: tracker.id },
      data: { leaseToken: "run:x", leaseExpiresAt: new Date(HISTORY_NOW.getTime() + 60_000) },
    });
    await thin();
    expect((await t.db.capture.findMany({ where: { trackerId: tracker.id } })).map((c) => c.id).sort()).toEqual(
      [base, a, latest].sort(),
    );
    await t.db.tracker.update({ where: { id: tracker.id }, data: { leaseToken: null, leaseExpiresAt: null } });
    await thin();
    // The baseline (a change) and the latest (the current state, also the day's last) stay.
    expect((await t.db.capture.findMany({ where: { trackerId: tracker.id } })).map((c) => c.id).sort()).toEqual(
      [base, latest].sort(),
    );
  });
});

describe("re-judged history", () => {
  it("keeps the capture and the run a re-judged entry hangs on", async () => {
    const history = await buildCaptureHistory(t.db, site, "/thin-rejudged");
    // "Lock with history" recorded a later version's reading of c2's run (a noise run the thinning would drop).
    const c2Run = history.runs.find((r) => r.label === "c2");
    if (!c2Run) throw new Error("no c2 run");
    const run = await t.db.refreshRun.findUniqueOrThrow({ where: { id: c2Run.runId } });
    const entity = await t.db.trackedEntity.findFirstOrThrow({ where: { trackerId: history.trackerId } });
    await appendRejudgedChanges(t.db, {
      trackerId: history.trackerId,
      version: 2,
      entries: [
        {
          runId: run.id,
          entityId: entity.id,
          capturedAt: run.finishedAt ?? new Date(),
          materiality: "material",
          delta: { price: { from: 10, to: 10.1 } },
          decisions: {},
        },
      ],
    });
    await thin();
    expect((await historyState(t.db, history)).labels).toEqual([...HISTORY_KEPT, "c2"].sort());
    // The run stays too, whatever run retention would say (its re-judged entry would go with it).
    await t.db.refreshRun.update({ where: { id: run.id }, data: { outcome: "unchanged", captureId: null } });
    await pruneRefreshRuns(t.db, { now: HISTORY_NOW, retentionDays: 7 });
    expect(await t.db.refreshRun.count({ where: { id: run.id } })).toBe(1);
    expect(await t.db.rejudgedChange.count({ where: { runId: run.id } })).toBe(1);
  }, 120_000);
});

describe("run retention and captures", () => {
  it("keeps an unchanged run that links a capture until capture retention drops it; the pass does both", async () => {
    const page = (note: string) => `<main><span id="price">$8.00</span><p>${note}</p></main>`;
    site.setPage("/thin-rehash", { body: page("a") });
    const { tracker } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/thin-rehash") },
      definition: cssPriceDefinition(0.05),
    });
    const refreshAt = async (iso: string, note: string) => {
      site.setPage("/thin-rehash", { body: page(note) });
      const when = new Date(iso);
      const r = await refreshTracker(t.db, tracker.id, {
        trigger: "manual",
        models: { filler: null, judge: null },
        capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
        now: () => when,
      });
      return t.db.refreshRun.update({ where: { id: r.runId }, data: { createdAt: when } });
    };
    const oldFormat = () =>
      t.db.entityCurrentState.updateMany({
        where: { entity: { trackerId: tracker.id } },
        data: { contentHash: "old" },
      });
    expect((await refreshAt("2026-04-01T09:00:00Z", "a")).outcome).toBe("baseline");
    // Re-read under a new page format, an untracked part changed: "unchanged", but new content, so it is stored.
    await oldFormat();
    const r2 = await refreshAt("2026-04-01T10:00:00Z", "b");
    await oldFormat();
    const r3 = await refreshAt("2026-04-01T11:00:00Z", "c");
    for (const r of [r2, r3]) expect(r).toMatchObject({ outcome: "unchanged", captureId: expect.any(String) });

    // Run retention alone keeps both: they are replay's input while their captures are kept.
    await pruneRefreshRuns(t.db, { now: HISTORY_NOW, retentionDays: 7 });
    expect(await t.db.refreshRun.count({ where: { id: { in: [r2.id, r3.id] } } })).toBe(2);

    // The retention pass thins first (r2's capture is not the day's last), then prunes r2 like any unchanged check.
    const pass = createRunPruner({ retentionDays: 7, captureRetentionDays: HISTORY_RETENTION_DAYS });
    const result = await pass.maybePrune(t.db, { now: HISTORY_NOW });
    expect(result?.captures).toMatchObject({ captures: 1, done: true });
    expect(result?.runs).toBeGreaterThanOrEqual(1);
    expect(await t.db.refreshRun.count({ where: { id: r2.id } })).toBe(0);
    expect((await t.db.refreshRun.findUniqueOrThrow({ where: { id: r3.id } })).captureId).toBe(r3.captureId);
    expect(await t.db.capture.count({ where: { id: r2.captureId ?? "" } })).toBe(0);
    const day = await t.db.runDailyStat.findUniqueOrThrow({
      where: { trackerId_day: { trackerId: tracker.id, day: new Date("2026-04-01T00:00:00Z") } },
    });
    expect(day.unchanged).toBe(1);
  });
});

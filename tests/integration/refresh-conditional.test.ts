import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { lockDefinition, saveDraftDefinition } from "@/server/trackers";
import { runDueRefreshes } from "@/server/triggers";
import { countedOn } from "../bench/sql-counter";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";

/**
 * Conditional requests (docs/refresh.md "Conditional requests"): a web.scrape refresh sends the last good 200's
 * validators, and a 304 is an unchanged run that downloads, parses and fills nothing, at the unchanged floor of two
 * statements. Every refresh goes through the real capability against the local fixture site, which answers 304 to a
 * matching If-None-Match (or an equal If-Modified-Since).
 */

const definition = cssPriceDefinition(0.05);
const LAST_MODIFIED = "Tue, 01 Dec 2026 10:00:00 GMT";

let t: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

const options = (extra: Partial<TRefreshOptions> = {}): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
  ...extra,
});

async function trackerAt(path: string, def: unknown = definition) {
  const created = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition: def,
  });
  return { trackerId: created.tracker.id, userId: created.userId };
}

/** The fixture site's log of requests to `path`, with the conditional headers each carried and its answer. */
const requestsTo = (path: string) =>
  site.requests
    .filter((r) => r.path === path)
    .map((r) => ({
      ifNoneMatch: r.headers["if-none-match"] ?? null,
      ifModifiedSince: r.headers["if-modified-since"] ?? null,
      status: r.status,
    }));

async function runOf(runId: string) {
  const run = await t.db.refreshRun.findUniqueOrThrow({ where: { id: runId } });
  const steps = run.steps as { step: string; detail?: string }[];
  const call = await t.db.capabilityCall.findFirstOrThrow({ where: { runId } });
  return { run, steps, call };
}

const counted = <T>(work: () => Promise<T>) => countedOn(t.pglite, work);

const stateOf = (trackerId: string) => t.db.entityCurrentState.findFirstOrThrow({ where: { entity: { trackerId } } });
const validatorsOf = async (trackerId: string) =>
  (await t.db.tracker.findUniqueOrThrow({ where: { id: trackerId } })).pageValidators as Record<string, unknown> | null;

describe("a page that sends validators", () => {
  it("keeps them from the 200, sends them on the next refresh, and a 304 is an unchanged run with nothing read", async () => {
    site.setPage("/etag", { body: priceBody("$10.00"), etag: '"v1"', lastModified: LAST_MODIFIED });
    const { trackerId } = await trackerAt("/etag");

    const baseline = await refreshTracker(t.db, trackerId, options());
    expect(baseline.outcome).toBe("baseline");
    const state = await stateOf(trackerId);
    // Kept by the run's final write, with the state a 304 to them stands for.
    expect(await validatorsOf(trackerId)).toEqual({
      etag: '"v1"',
      lastModified: LAST_MODIFIED,
      url: site.urlFor("/etag"),
      version: 1,
      entityId: state.entityId,
      contentHash: state.contentHash,
    });

    const notModified = await counted(() => refreshTracker(t.db, trackerId, options()));
    expect(notModified.value).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 0 });
    // The unchanged floor: the lease read and the one final write, no transaction.
    expect(notModified.statements).toBeLessThanOrEqual(2);
    expect(notModified.transactions).toBe(0);
    expect(requestsTo("/etag")).toEqual([
      { ifNoneMatch: null, ifModifiedSince: null, status: 200 },
      { ifNoneMatch: '"v1"', ifModifiedSince: LAST_MODIFIED, status: 304 },
    ]);
    // Nothing downloaded, parsed or filled: the ledger saw 0 bytes, the steps end at the pre-check.
    const { run, steps, call } = await runOf(notModified.value.runId);
    expect(call).toMatchObject({ httpStatus: 304, bytes: 0, status: "completed" });
    expect(steps.map((s) => s.step)).toEqual(["lease", "crawl", "precheck", "append"]);
    expect(steps.find((s) => s.step === "crawl")?.detail).toMatch(/not modified \(304\)/);
    expect(steps.find((s) => s.step === "precheck")?.detail).toBe("unchanged (not modified)");
    expect(run.summary).toBe("no change (not modified)");
    // It proves the page answered: the state is stamped, the hash kept, the tracker healthy.
    const after = await stateOf(trackerId);
    expect(after.contentHash).toBe(state.contentHash);
    expect(after.lastCheckedAt.getTime()).toBe(run.finishedAt?.getTime());
    const tracker = await t.db.tracker.findUniqueOrThrow({ where: { id: trackerId } });
    expect(tracker).toMatchObject({ consecutiveFailures: 0, leaseToken: null });
    expect(tracker.lastRunAt?.getTime()).toBe(run.finishedAt?.getTime());
  });

  it("a changed page after a 304 streak is read and recorded, and its new validators replace the old", async () => {
    site.setPage("/streak", { body: priceBody("$10.00"), etag: '"a"' });
    const { trackerId } = await trackerAt("/streak");
    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("baseline");
    for (let i = 0; i < 3; i++) {
      const r = await refreshTracker(t.db, trackerId, options());
      expect(r).toMatchObject({ outcome: "unchanged", summary: "no change (not modified)" });
    }
    const before = await stateOf(trackerId);

    site.setPage("/streak", { body: priceBody("$20.00"), etag: '"b"' });
    const changed = await refreshTracker(t.db, trackerId, options());
    expect(changed).toMatchObject({ status: "completed", outcome: "material" });
    const change = await t.db.entityChange.findFirstOrThrow({ where: { runId: changed.runId } });
    expect(change.delta).toMatchObject({ price: { from: { amount: 10 }, to: { amount: 20 } } });
    const after = await stateOf(trackerId);
    expect(after.contentHash).not.toBe(before.contentHash);
    expect(await validatorsOf(trackerId)).toMatchObject({ etag: '"b"', contentHash: after.contentHash });

    expect((await refreshTracker(t.db, trackerId, options())).summary).toBe("no change (not modified)");
    expect(requestsTo("/streak").map((r) => `${r.ifNoneMatch ?? "-"} ${r.status}`)).toEqual([
      "- 200",
      '"a" 304',
      '"a" 304',
      '"a" 304',
      '"a" 200',
      '"b" 304',
    ]);
  });

  it("Last-Modified alone is enough", async () => {
    site.setPage("/dated", { body: priceBody("$10.00"), lastModified: LAST_MODIFIED });
    const { trackerId } = await trackerAt("/dated");
    await refreshTracker(t.db, trackerId, options());
    expect((await refreshTracker(t.db, trackerId, options())).summary).toBe("no change (not modified)");
    expect(requestsTo("/dated").at(-1)).toEqual({ ifNoneMatch: null, ifModifiedSince: LAST_MODIFIED, status: 304 });
  });

  it("a 304 that names the body anew (a new ETag) is kept, and the next refresh sends it", async () => {
    site.setPage("/renamed", { body: priceBody("$10.00"), lastModified: LAST_MODIFIED });
    const { trackerId } = await trackerAt("/renamed");
    await refreshTracker(t.db, trackerId, options());
    expect(await validatorsOf(trackerId)).toMatchObject({ etag: null, lastModified: LAST_MODIFIED });
    // The server starts sending an ETag for the same body: asked by date, it answers 304 with the new ETag.
    site.setPage("/renamed", { body: priceBody("$10.00"), lastModified: LAST_MODIFIED, etag: '"v2"' });
    expect((await refreshTracker(t.db, trackerId, options())).summary).toBe("no change (not modified)");
    expect(requestsTo("/renamed").at(-1)).toEqual({ ifNoneMatch: null, ifModifiedSince: LAST_MODIFIED, status: 304 });
    expect(await validatorsOf(trackerId)).toMatchObject({ etag: '"v2"', lastModified: LAST_MODIFIED });
    expect((await refreshTracker(t.db, trackerId, options())).summary).toBe("no change (not modified)");
    expect(requestsTo("/renamed").at(-1)).toEqual({ ifNoneMatch: '"v2"', ifModifiedSince: LAST_MODIFIED, status: 304 });
  });

  it("on the cron path too: the claim is the read, and the 304 runs' writes share its batch", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      site.setPage(`/cron-304-${i}`, { body: priceBody(`$${i + 1}.00`), etag: `"c${i}"` });
      ids.push((await trackerAt(`/cron-304-${i}`)).trackerId);
    }
    const due = async () => {
      await t.db.tracker.updateMany({ where: { id: { in: ids } }, data: { nextRunAt: new Date(0) } });
      await t.db.tracker.updateMany({ where: { id: { notIn: ids } }, data: { nextRunAt: null } });
    };
    const pass = () =>
      runDueRefreshes(t.db, {
        trigger: "cron",
        concurrency: 1,
        budgetMs: 30_000,
        finalWriteWaitMs: 60_000,
        refreshOptions: options(),
      });
    await due();
    expect((await pass()).outcomes).toEqual({ baseline: 4 });
    await due();
    const second = await counted(pass);
    expect(second.value.outcomes).toEqual({ unchanged: 4 });
    // Besides the claims, ONE statement: the four 304 runs' final writes, batched (final-write-batch.ts).
    const claims = second.sent.filter((sql) => /FOR UPDATE SKIP LOCKED/.test(sql)).length;
    expect(second.statements - claims).toBe(1);
    expect(second.transactions).toBe(0);
    for (let i = 0; i < 4; i++) expect(requestsTo(`/cron-304-${i}`).at(-1)?.status).toBe(304);
  });
});

describe("a server without validators, or one that ignores them", () => {
  it("no validators: nothing sent, nothing kept, the page is read and hashed as before", async () => {
    site.setPage("/plain", { body: priceBody("$10.00") });
    const { trackerId } = await trackerAt("/plain");
    await refreshTracker(t.db, trackerId, options());
    const again = await counted(() => refreshTracker(t.db, trackerId, options()));
    expect(again.value).toMatchObject({ outcome: "unchanged", summary: "no change" });
    expect(again.statements).toBeLessThanOrEqual(2);
    expect(await validatorsOf(trackerId)).toBeNull();
    expect(requestsTo("/plain")).toEqual([
      { ifNoneMatch: null, ifModifiedSince: null, status: 200 },
      { ifNoneMatch: null, ifModifiedSince: null, status: 200 },
    ]);
    const { steps, call } = await runOf(again.value.runId);
    expect(call.bytes).toBeGreaterThan(0);
    expect(steps.find((s) => s.step === "precheck")?.detail).toBe("unchanged");
  });

  it("validators ignored (always 200): processed as today, at the same two statements", async () => {
    // The ETag is sent as a plain header, so the fixture never answers 304.
    site.setPage("/ignores", { body: priceBody("$10.00"), headers: { etag: '"same"' } });
    const { trackerId } = await trackerAt("/ignores");
    await refreshTracker(t.db, trackerId, options());
    const again = await counted(() => refreshTracker(t.db, trackerId, options()));
    expect(again.value).toMatchObject({ outcome: "unchanged", summary: "no change" });
    expect(again.statements).toBeLessThanOrEqual(2);
    expect(requestsTo("/ignores").at(-1)).toEqual({ ifNoneMatch: '"same"', ifModifiedSince: null, status: 200 });

    site.setPage("/ignores", { body: priceBody("$30.00"), headers: { etag: '"same"' } });
    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("material");
  });
});

describe("a new definition version", () => {
  it("is not hidden by a 304: its first refresh reads the page whole, later ones are conditional again", async () => {
    const body = `<main><h1>Widget Pro</h1><span id="price">$10.00</span></main>`;
    site.setPage("/versioned", { body, etag: '"same-page"' });
    const { trackerId, userId } = await trackerAt("/versioned");
    await refreshTracker(t.db, trackerId, options());
    expect((await refreshTracker(t.db, trackerId, options())).summary).toBe("no change (not modified)");

    // Version 2 reads a field version 1 never did, from the very same (unmodified) page.
    await saveDraftDefinition(t.db, {
      userId,
      trackerId,
      definition: {
        ...definition,
        fields: [
          ...definition.fields,
          { name: "product", type: "string", description: "Product name", extractor: { kind: "css", selector: "h1" } },
        ],
      },
    });
    await lockDefinition(t.db, { userId, trackerId });
    const v2 = await refreshTracker(t.db, trackerId, options());
    expect(v2.status).toBe("completed");
    expect(v2.summary).not.toMatch(/not modified/);
    expect(requestsTo("/versioned").at(-1)).toEqual({ ifNoneMatch: null, ifModifiedSince: null, status: 200 });
    const { run, steps } = await runOf(v2.runId);
    expect(run.definitionVersion).toBe(2);
    expect(steps.map((s) => s.step)).toContain("fill");
    expect((await stateOf(trackerId)).fields).toMatchObject({ product: "Widget Pro" });
    expect(await validatorsOf(trackerId)).toMatchObject({
      version: 2,
      contentHash: (await stateOf(trackerId)).contentHash,
    });

    const next = await refreshTracker(t.db, trackerId, options());
    expect(next.summary).toBe("no change (not modified)");
    expect((await runOf(next.runId)).run.definitionVersion).toBe(2);
  });
});

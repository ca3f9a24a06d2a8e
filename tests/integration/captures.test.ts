import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { ZCapturePayloadSchema } from "@/server/intelligence/replay/replay-basis";
import { decodeCapture, getCaptureStats, listRunCaptures } from "@/server/timeline";
import { countSql } from "../bench/sql-counter";
import { cataloguePage } from "../fixtures/catalogue-page";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";

/**
 * Captures (replay's stored input, docs/replay.md) on embedded PGlite, through real refreshes of the fixture site: only a
 * new content hash stores one, once per entity and content, compressed, linked from its run; unchanged refreshes and
 * runs that lost their lease store nothing.
 */

const definition = cssPriceDefinition(0.05);
/** The same bytes on every request (no nonce), so content that returns is byte-identical. */
const stablePage = (price: string) => `<main><h1>Espresso</h1><span id="price">${price}</span></main>`;

let t: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  [t, site] = await Promise.all([createTestDb(), startFixtureSite()]);
});
afterAll(async () => {
  await Promise.all([site?.close(), t?.close()]);
});

const options = (extra: Partial<TRefreshOptions> = {}): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000, maxBytes: 500_000 }),
  ...extra,
});

async function trackerAt(path: string, body: string) {
  site.setPage(path, { body });
  const { tracker } = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition,
  });
  return tracker.id;
}

const capturesOf = (trackerId: string) =>
  t.db.capture.findMany({ where: { trackerId }, orderBy: { createdAt: "asc" } });
const runOf = (runId: string) => t.db.refreshRun.findUniqueOrThrow({ where: { id: runId } });

describe("captures", () => {
  it("the baseline stores its capture; unchanged refreshes store none (still one read, one write); a change stores one", async () => {
    const trackerId = await trackerAt("/cap-basic", priceBody("$10.00"));
    const baseline = await refreshTracker(t.db, trackerId, options());
    expect(baseline.outcome).toBe("baseline");
    const [first, ...others] = await capturesOf(trackerId);
    expect(others).toEqual([]);
    const baselineRun = await runOf(baseline.runId);
    expect(baselineRun.captureId).toBe(first?.id);
    expect(baselineRun.replayBasis).not.toBeNull();
    expect(first?.entityId).toBe((await t.db.trackedEntity.findFirstOrThrow({ where: { trackerId } })).id);

    for (let i = 0; i < 3; i++) {
      site.setPage("/cap-basic", { body: priceBody("$10.00") }); // byte-different (nonce), same document
      const unchanged = countSql(t.pglite);
      let result: Awaited<ReturnType<typeof refreshTracker>>;
      try {
        result = await refreshTracker(t.db, trackerId, options());
      } finally {
        unchanged.restore();
      }
      expect(result).toMatchObject({ status: "completed", outcome: "unchanged" });
      expect(unchanged.statements).toBeLessThanOrEqual(2);
      const run = await runOf(result.runId);
      expect(run.captureId).toBeNull();
      expect(run.replayBasis).toBeNull();
    }
    expect(await t.db.capture.count({ where: { trackerId } })).toBe(1);

    site.setPage("/cap-basic", { body: priceBody("$20.00") });
    const changed = await refreshTracker(t.db, trackerId, options());
    expect(changed.outcome).toBe("material");
    const all = await capturesOf(trackerId);
    expect(all).toHaveLength(2);
    const changedRun = await runOf(changed.runId);
    expect(changedRun.captureId).toBe(all[1]?.id);
    expect(changedRun.captureId).not.toBe(first?.id);
    expect(await getCaptureStats(t.db, trackerId)).toEqual({
      captures: 2,
      bytes: all.reduce((n, c) => n + c.storedBytes, 0),
    });
  });

  it("a page that flips A → B → A stores two captures, and the three runs link them in order", async () => {
    const trackerId = await trackerAt("/cap-flip", stablePage("$10.00"));
    const runs = [await refreshTracker(t.db, trackerId, options())];
    site.setPage("/cap-flip", { body: stablePage("$10.10") }); // noise (1 %): still new content
    runs.push(await refreshTracker(t.db, trackerId, options()));
    site.setPage("/cap-flip", { body: stablePage("$10.00") });
    runs.push(await refreshTracker(t.db, trackerId, options()));
    expect(runs.map((r) => r.outcome)).toEqual(["baseline", "noise", "noise"]);

    const captures = await capturesOf(trackerId);
    expect(captures).toHaveLength(2);
    const [a, b] = captures;
    const linked = await Promise.all(runs.map(async (r) => (await runOf(r.runId)).captureId));
    expect(linked).toEqual([a?.id, b?.id, a?.id]);
    // Replay's reader sees them the same way: in run order, A again at the end.
    const listed = await listRunCaptures(t.db, { trackerId });
    expect(listed.inPeriod.map((r) => [r.runId, r.captureId])).toEqual(runs.map((r, i) => [r.runId, linked[i]]));
  });

  it("the same content on two trackers is two rows (one per entity)", async () => {
    const one = await trackerAt("/cap-same", stablePage("$7.00"));
    const two = await trackerAt("/cap-same", stablePage("$7.00"));
    await refreshTracker(t.db, one, options());
    await refreshTracker(t.db, two, options());
    const [c1] = await capturesOf(one);
    const [c2] = await capturesOf(two);
    expect(c1?.hash).toBe(c2?.hash);
    expect(c1?.id).not.toBe(c2?.id);
    expect(c1?.entityId).not.toBe(c2?.entityId);
    expect(await t.db.capture.count({ where: { trackerId: { in: [one, two] } } })).toBe(2);
  });

  it("is compressed: a 39 KB page is stored in well under a third of its bytes, and decodes to what the run saw", async () => {
    const html = cataloguePage("$12.00");
    expect(html.length).toBeGreaterThan(20_000);
    expect(html.length).toBeLessThan(50_000);
    const trackerId = await trackerAt("/catalogue", html);
    const result = await refreshTracker(t.db, trackerId, options());
    expect(result.outcome).toBe("baseline");
    const [capture] = await capturesOf(trackerId);
    if (!capture) throw new Error("no capture");
    // The payload holds the whole page and its document …
    expect(capture.rawBytes).toBeGreaterThan(html.length);
    // … compressed: Brotli on markup like this does far better than 3×.
    expect(capture.storedBytes).toBe(capture.data.byteLength);
    expect(capture.storedBytes).toBeLessThan(capture.rawBytes / 3);
    console.info(
      `captures: ${capture.rawBytes} B raw → ${capture.storedBytes} B stored (${(capture.rawBytes / capture.storedBytes).toFixed(1)}×)`,
    );

    const payload = ZCapturePayloadSchema.parse(await decodeCapture(capture.data));
    expect(payload.raw.html).toContain('<span id="price">$12.00</span>');
    expect(payload.raw.html).toContain("Smooth");
    expect(payload.raw.text).toContain("House espresso");
    expect(payload.entityKey).toBe((await t.db.trackedEntity.findFirstOrThrow({ where: { trackerId } })).entityKey);
    expect(payload.source).toContain("/catalogue");
    // … whose text is stored once: the row leaves raw.text out and the schema reads it back from the document.
    const stored = (await decodeCapture(capture.data)) as { raw: { text?: string; json: { mainText: string } } };
    expect(stored.raw.text).toBeUndefined();
    expect(payload.raw.text).toBe(stored.raw.json.mainText);
    // Round trip: the decoded payload is byte for byte what was hashed.
    const text = JSON.stringify(stored);
    expect(Buffer.byteLength(text)).toBe(capture.rawBytes);
    expect(createHash("sha256").update(text).digest("hex")).toBe(capture.hash);
  });

  it("a run that lost its lease stores nothing: the baseline/change path (capture, change row, outbox, state)", async () => {
    const trackerId = await trackerAt("/cap-lease", stablePage("$30.00"));
    let wake: (() => void) | undefined;
    const zombie = refreshTracker(
      t.db,
      trackerId,
      options({
        leaseMs: 50,
        renewLease: false, // a hung process renews nothing
        afterFill: () =>
          new Promise<void>((resolve) => {
            wake = resolve;
          }),
      }),
    );
    await expect.poll(() => wake !== undefined, { timeout: 10_000 }).toBe(true);
    // Meanwhile the page moved on and another refresh took the expired lease and stored what it saw.
    site.setPage("/cap-lease", { body: stablePage("$40.00") });
    await new Promise((r) => setTimeout(r, 80));
    const taker = await refreshTracker(t.db, trackerId, options());
    expect(taker).toMatchObject({ status: "completed", outcome: "baseline" });
    const stored = await capturesOf(trackerId);
    expect(stored).toHaveLength(1);

    // The hung run wakes with the $30 page and tries to finish: nothing of it is stored.
    wake?.();
    const late = await zombie;
    expect(late.status).not.toBe("completed");
    expect(await capturesOf(trackerId)).toEqual(stored);
    // Its change row, outbox row and state rode in the same fenced statement: none of them was written either.
    const changes = await t.db.entityChange.findMany({ where: { trackerId } });
    expect(changes.map((c) => c.runId)).toEqual([taker.runId]);
    expect(await t.db.changeOutbox.count({ where: { change: { trackerId } } })).toBe(0); // baselines notify nobody
    const state = await t.db.entityCurrentState.findFirstOrThrow({ where: { entity: { trackerId } } });
    expect(JSON.stringify(state.fields)).toContain("40");
    expect((await runOf(taker.runId)).captureId).toBe(stored[0]?.id);
    const payload = ZCapturePayloadSchema.parse(await decodeCapture(stored[0]?.data ?? new Uint8Array()));
    expect(payload.raw.html).toContain("$40.00");
  });

  it("a run that lost its lease stores no capture: the one-statement path (re-hash under a new page format)", async () => {
    // A stored hash from an older document format: the next reads re-fill, find no tracked field moved, and store the
    // new hash like an unchanged page — in one fenced statement, which also carries the capture.
    const page = (note: string) => `<main><span id="price">$50.00</span><p>${note}</p></main>`;
    const trackerId = await trackerAt("/cap-lease-stamp", page("first"));
    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("baseline");
    const oldFormat = () =>
      t.db.entityCurrentState.updateMany({ where: { entity: { trackerId } }, data: { contentHash: "old" } });
    await oldFormat();
    site.setPage("/cap-lease-stamp", { body: page("second") });
    let wake: (() => void) | undefined;
    const zombie = refreshTracker(
      t.db,
      trackerId,
      options({
        leaseMs: 50,
        renewLease: false,
        afterFill: () =>
          new Promise<void>((resolve) => {
            wake = resolve;
          }),
      }),
    );
    await expect.poll(() => wake !== undefined, { timeout: 10_000 }).toBe(true);
    site.setPage("/cap-lease-stamp", { body: page("third") });
    await new Promise((r) => setTimeout(r, 80));
    const taker = await refreshTracker(t.db, trackerId, options());
    expect(taker).toMatchObject({ status: "completed", outcome: "unchanged" });
    const takerRun = await runOf(taker.runId);
    expect(takerRun.captureId).not.toBeNull();
    const stored = await capturesOf(trackerId);
    expect(stored).toHaveLength(2); // the baseline's and the taker's
    // Back to the older format before the hung run wakes, so nothing but its lease stops it.
    await oldFormat();
    wake?.();
    const late = await zombie;
    expect(late).toMatchObject({ status: "failed", error: { code: "LEASE_LOST" } });
    expect(await capturesOf(trackerId)).toEqual(stored);
    const texts = await Promise.all(
      stored.map(async (c) => ZCapturePayloadSchema.parse(await decodeCapture(c.data)).raw.html ?? ""),
    );
    expect(texts.some((h) => h.includes("second"))).toBe(false);
  });
});

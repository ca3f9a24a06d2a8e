import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker } from "@/server/intelligence/refresh";
import { decodeCapture, queryTimeline, thinCaptures } from "@/server/timeline";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import {
  buildCaptureHistory,
  HISTORY_KEPT,
  HISTORY_NOW,
  HISTORY_RETENTION_DAYS,
  HISTORY_THINNED,
  historyState,
} from "../helpers/capture-history";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";

/**
 * Captures (docs/replay.md) on PostgreSQL: the same storage and the same thinning SQL as on PGlite; two retention passes at
 * once (separate pool connections, as two workers would run them) delete each thinned capture once.
 */
describe.skipIf(!hasPostgres)("captures on PostgreSQL", () => {
  let pg: TPostgresTestDb;
  let site: TFixtureSite;

  beforeAll(async () => {
    [pg, site] = await Promise.all([createPostgresTestDb(), startFixtureSite()]);
  });
  afterAll(async () => {
    await Promise.all([pg?.drop(), site?.close()]);
  });

  it("stores a capture for new content only, once per content, linked from its run", async () => {
    site.setPage("/pg-cap", { body: priceBody("$10.00") });
    const { tracker } = await createActiveTracker(pg.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/pg-cap") },
      definition: cssPriceDefinition(0.05),
    });
    const refresh = async (body: string) => {
      site.setPage("/pg-cap", { body });
      const r = await refreshTracker(pg.db, tracker.id, {
        trigger: "manual",
        models: { filler: null, judge: null },
        capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
      });
      return pg.db.refreshRun.findUniqueOrThrow({ where: { id: r.runId } });
    };
    const baseline = await refresh(priceBody("$10.00"));
    const unchanged = await refresh(priceBody("$10.00"));
    const changed = await refresh(priceBody("$20.00"));
    expect([baseline.outcome, unchanged.outcome, changed.outcome]).toEqual(["baseline", "unchanged", "material"]);
    expect(unchanged.captureId).toBeNull();
    const captures = await pg.db.capture.findMany({ where: { trackerId: tracker.id }, orderBy: { createdAt: "asc" } });
    expect(captures.map((c) => c.id)).toEqual([baseline.captureId, changed.captureId]);
    const payload = (await decodeCapture(captures[1]?.data ?? new Uint8Array())) as { raw: { html: string } };
    expect(payload.raw.html).toContain("$20.00");
  });

  it("thins the same captures as on PGlite, each once when two passes run together, and is idempotent", async () => {
    const history = await buildCaptureHistory(pg.db, site, "/pg-thin");
    const timeline = await queryTimeline(pg.db, { trackerId: history.trackerId, limit: 100 });
    const results = await Promise.all(
      [0, 1].map(() => thinCaptures(pg.db, { now: HISTORY_NOW, retentionDays: HISTORY_RETENTION_DAYS, batchSize: 1 })),
    );
    expect(results.reduce((n, r) => n + r.captures, 0)).toBe(HISTORY_THINNED.length);
    expect(results.every((r) => r.done)).toBe(true);
    const after = await historyState(pg.db, history);
    expect(after.labels).toEqual([...HISTORY_KEPT].sort());
    for (const run of history.runs) {
      const kept = run.label && !(HISTORY_THINNED as readonly string[]).includes(run.label);
      expect(after.links.get(run.runId)).toBe(kept ? history.captures[run.label ?? ""] : null);
    }
    expect(await queryTimeline(pg.db, { trackerId: history.trackerId, limit: 100 })).toEqual(timeline);
    expect(await thinCaptures(pg.db, { now: HISTORY_NOW, retentionDays: HISTORY_RETENTION_DAYS })).toMatchObject({
      captures: 0,
      done: true,
    });
  }, 120_000);
});

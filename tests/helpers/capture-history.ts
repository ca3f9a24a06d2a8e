import { expect } from "vitest";
import type { TDb } from "@/server/db";
import { refreshTracker } from "@/server/intelligence/refresh";
import type { TFixtureSite } from "../fixtures/site/site";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig } from "./trackers";

/**
 * A tracker's stored history for capture retention (docs/replay.md, "Captures"), made by real refreshes of the fixture site with an
 * injected clock (a run's `finishedAt` is its refresh's clock; its `createdAt` is set to the same instant). Shared by
 * the PGlite and PostgreSQL tests. Price by code, material on a 5 % move; pages are byte-stable, so content that
 * returns is the same capture.
 *
 * "Now" is 30 June 12:00 UTC; with 30 days' retention captures last seen before 31 May 12:00 may be thinned:
 *   1 May  09:00 c1 $10.00 baseline (a change: kept)  10:00 c2 noise  11:00 c3 noise  12:00 c4 noise (last: kept)
 *   2 May  09:00 c5 $10.40 noise  10:00 c6 $12.00 material (kept)  11:00 c7 $12.10 noise  12:00 unchanged (no capture)
 *   3 May  09:00 c8 $12.20 noise  10:00 $12.10 again: c7, now last seen 3 May (kept as that day's last) — so 2 May's
 *          only unreferenced capture is c5 (kept)
 *  20 Jun  09:00 c9 noise  10:00 c10 noise (inside the period: both kept; c10 is the latest)
 * Thinned: c2, c3, c8.
 */
export const HISTORY_NOW = new Date("2026-06-30T12:00:00Z");
export const HISTORY_RETENTION_DAYS = 30;
export const HISTORY_KEPT = ["c1", "c4", "c5", "c6", "c7", "c9", "c10"] as const;
export const HISTORY_THINNED = ["c2", "c3", "c8"] as const;

const stablePage = (price: string, note = "") => `<main><span id="price">${price}</span><p>${note}</p></main>`;

export async function buildCaptureHistory(db: TDb, site: TFixtureSite, path: string, userId?: string) {
  site.setPage(path, { body: stablePage("$10.00") });
  const created = await createActiveTracker(db, {
    ...(userId ? { userId } : {}),
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition: cssPriceDefinition(0.05),
  });
  const trackerId = created.tracker.id;
  const steps: [label: string | null, when: string, price: string, outcome: string][] = [
    ["c1", "2026-05-01T09:00:00Z", "$10.00", "baseline"],
    ["c2", "2026-05-01T10:00:00Z", "$10.10", "noise"],
    ["c3", "2026-05-01T11:00:00Z", "$10.20", "noise"],
    ["c4", "2026-05-01T12:00:00Z", "$10.30", "noise"],
    ["c5", "2026-05-02T09:00:00Z", "$10.40", "noise"],
    ["c6", "2026-05-02T10:00:00Z", "$12.00", "material"],
    ["c7", "2026-05-02T11:00:00Z", "$12.10", "noise"],
    [null, "2026-05-02T12:00:00Z", "$12.10", "unchanged"],
    ["c8", "2026-05-03T09:00:00Z", "$12.20", "noise"],
    ["c7", "2026-05-03T10:00:00Z", "$12.10", "noise"],
    ["c9", "2026-06-20T09:00:00Z", "$12.30", "noise"],
    ["c10", "2026-06-20T10:00:00Z", "$12.40", "noise"],
  ];
  const captures: Record<string, string> = {};
  const runs: { runId: string; label: string | null }[] = [];
  for (const [label, iso, price, outcome] of steps) {
    site.setPage(path, { body: stablePage(price) });
    const when = new Date(iso);
    const result = await refreshTracker(db, trackerId, {
      trigger: "manual",
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
      now: () => when,
    });
    expect(result).toMatchObject({ status: "completed", outcome });
    const run = await db.refreshRun.update({ where: { id: result.runId }, data: { createdAt: when } });
    expect(run.finishedAt?.getTime()).toBe(when.getTime());
    if (label) {
      expect(run.captureId).not.toBeNull();
      if (captures[label]) expect(run.captureId).toBe(captures[label]);
      captures[label] = run.captureId ?? "";
    } else expect(run.captureId).toBeNull();
    runs.push({ runId: result.runId, label });
  }
  expect(new Set(Object.values(captures)).size).toBe(10);
  expect(await db.capture.count({ where: { trackerId } })).toBe(10);
  return { trackerId, userId: created.userId, captures, runs };
}

/** Which labels of the history are still stored, and what each run links now. */
export async function historyState(db: TDb, history: Awaited<ReturnType<typeof buildCaptureHistory>>) {
  const stored = new Set(
    (await db.capture.findMany({ where: { trackerId: history.trackerId }, select: { id: true } })).map((c) => c.id),
  );
  const labels = Object.entries(history.captures)
    .filter(([, id]) => stored.has(id))
    .map(([label]) => label);
  const links = await db.refreshRun.findMany({
    where: { id: { in: history.runs.map((r) => r.runId) } },
    select: { id: true, captureId: true },
  });
  return { labels: labels.sort(), links: new Map(links.map((r) => [r.id, r.captureId])) };
}

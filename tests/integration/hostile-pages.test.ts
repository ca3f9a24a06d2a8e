import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as healthRoute } from "@/app/api/health/route";
import {
  closePageWorkers,
  DEFAULT_PAGE_LIMITS,
  formatStructuredDocument,
  makeCapabilityConfig,
} from "@/server/capabilities";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker } from "../helpers/trackers";

/**
 * docs/design.md §5: no page can stall the server. Hostile pages (200,000 unclosed tags, 3,000-deep nesting,
 * NULs in text) are refreshed by the real hot loop in this process while a real HTTP server in this
 * same process answers /api/health through the app's route handler: the event loop must stay free
 * (every health answer < 100 ms) and each run completes or fails cleanly within its budget.
 */

let db: TTestDb;
let site: TFixtureSite;
let health: Server;
let healthUrl: string;

beforeAll(async () => {
  db = await createTestDb();
  site = await startFixtureSite();
  // The route handler opens the app's database through getDb(): hand it this test's database.
  (globalThis as { __bellwetherDb?: { opening?: Promise<unknown> } }).__bellwetherDb = {
    opening: Promise.resolve({ db: db.db, close: async () => {} }),
  };
  health = createServer(async (_req, res) => {
    const response = await healthRoute();
    res.writeHead(response.status, { "content-type": "application/json" });
    res.end(await response.text());
  });
  await new Promise<void>((resolve) => health.listen(0, "127.0.0.1", resolve));
  healthUrl = `http://127.0.0.1:${(health.address() as AddressInfo).port}/api/health`;
  // The probe's own first request (HTTP client set-up, the route's first query) is not what is measured.
  for (let i = 0; i < 3; i++) expect((await fetch(healthUrl)).status).toBe(200);
});
afterAll(async () => {
  (globalThis as { __bellwetherDb?: unknown }).__bellwetherDb = undefined;
  await new Promise((resolve) => health?.close(resolve));
  await site?.close();
  await closePageWorkers();
  await db?.close();
});

const UNCLOSED = "<div>".repeat(200_000); // 1 MB, as in the issue
const DEEP = `<html><body><main>${"<div><span>".repeat(1_500)}Deep price $5.00${"</span></div>".repeat(1_500)}</main></body></html>`;
const NUL_PAGE = `<html><head><title>Lamp\u0000</title></head><body><main><p id="d">a\u0000b</p>${"<p>filler text \u0000 line</p>".repeat(20_000)}</main></body></html>`;

/**
 * Runs `work` while /api/health is polled, and requires every answer in < 100 ms. This machine is shared
 * (other processes take the CPU for 100 ms and more at times, which no code here can prevent), so a window
 * that fails is measured again, at most three times in all; a thread blocked by page parsing fails every
 * window (the control test shows the probe sees it).
 */
async function expectHealthyDuring(work: () => Promise<void>): Promise<void> {
  const windows: number[][] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const latencies = await healthLatenciesDuring(work);
    expect(latencies.length).toBeGreaterThan(0);
    windows.push(latencies);
    if (Math.max(...latencies) < 100) return;
  }
  const worst = windows.map((w) => Math.round(Math.max(...w)));
  expect.fail(`/api/health took ${worst.join(" / ")} ms at worst in ${windows.length} windows (limit 100 ms)`);
}

/** Polls /api/health every few ms while `work` runs; returns every answer's latency. */
async function healthLatenciesDuring(work: () => Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(healthUrl);
      expect(res.status).toBe(200);
      await res.json();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await probe;
  }
  return latencies;
}

function trackerOn(path: string) {
  return createActiveTracker(db.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition: {
      fields: [
        { name: "title", type: "string", description: "t", extractor: { kind: "css", selector: "div div span" } },
        { name: "para", type: "string", description: "p", extractor: { kind: "css", selector: "main > p#d" } },
      ],
      identityRule: { kind: "canonical_url" },
      materiality: {},
    },
  });
}

const options = (pageTimeoutMs: number, memoryMb = 256): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: makeCapabilityConfig({
    fetch: {
      allowHosts: [new URL(site.url).host],
      timeoutMs: 20_000,
      page: { ...DEFAULT_PAGE_LIMITS, timeoutMs: pageTimeoutMs, memoryMb },
    },
  }),
});

describe("hostile pages", () => {
  it("the health probe notices a blocked event loop (the measurement can fail)", async () => {
    const started = performance.now();
    const answered = fetch(healthUrl).then(() => performance.now() - started);
    formatStructuredDocument(UNCLOSED, "https://x.test/"); // on this thread, on purpose: what the pool avoids
    expect(await answered).toBeGreaterThan(100);
  });

  it("200,000 unclosed tags, 3,000-deep nesting and NULs: runs complete while /api/health answers in < 100 ms", async () => {
    site.setPage("/unclosed", { body: UNCLOSED });
    site.setPage("/deep", { body: DEEP });
    site.setPage("/nul", { body: NUL_PAGE });
    const trackers = await Promise.all(["/unclosed", "/deep", "/nul"].map(trackerOn));
    // Warm the worker pool (start-up compiles the worker's modules) outside the measured window.
    await Promise.all(trackers.map((t) => refreshTracker(db.db, t.tracker.id, options(30_000))));

    const results: Awaited<ReturnType<typeof refreshTracker>>[] = [];
    await expectHealthyDuring(async () => {
      results.push(...(await Promise.all(trackers.map((t) => refreshTracker(db.db, t.tracker.id, options(30_000))))));
    });
    expect(results.length).toBeGreaterThanOrEqual(3);
    for (const r of results) expect(r.status, JSON.stringify(r.error)).toBe("completed");

    const deep = await db.db.entityCurrentState.findFirstOrThrow({
      where: { entity: { trackerId: trackers[1]?.tracker.id } },
    });
    expect((deep.fields as { title: string }).title).toBe("Deep price $5.00");
    const nul = await db.db.entityCurrentState.findFirstOrThrow({
      where: { entity: { trackerId: trackers[2]?.tracker.id } },
    });
    expect((nul.fields as { para: string }).para).toBe("ab");
  });

  it("a page over its time budget fails cleanly with PAGE_TOO_COMPLEX; the worker is replaced and the next run succeeds", async () => {
    site.setPage("/slow", { body: `${UNCLOSED}${"<p>x</p>".repeat(50_000)}` });
    const { tracker } = await trackerOn("/slow");
    await expectHealthyDuring(async () => {
      const failed = await refreshTracker(db.db, tracker.id, options(20));
      expect(failed).toMatchObject({ status: "failed", error: { code: "PAGE_TOO_COMPLEX", retryable: false } });
      expect(failed.error?.message).toContain("budget");
    });
    const state = await db.db.entityCurrentState.count({ where: { entity: { trackerId: tracker.id } } });
    expect(state).toBe(0); // nothing half-written
    const ok = await refreshTracker(db.db, tracker.id, options(30_000));
    expect(ok).toMatchObject({ status: "completed", outcome: "baseline" });
  });

  it("a page over its memory cap fails cleanly with PAGE_TOO_COMPLEX; the server and later runs are unaffected", async () => {
    site.setPage("/big", { body: `${"<div class=a>".repeat(300_000)}` });
    const { tracker } = await trackerOn("/big");
    await expectHealthyDuring(async () => {
      await closePageWorkers(); // the pool is sized by its first caller: start one with a small heap
      const failed = await refreshTracker(db.db, tracker.id, options(30_000, 32));
      expect(failed).toMatchObject({ status: "failed", error: { code: "PAGE_TOO_COMPLEX" } });
      expect(failed.error?.message).toContain("32 MB");
    });
    await closePageWorkers();
    const ok = await refreshTracker(db.db, tracker.id, options(30_000, 256));
    expect(ok).toMatchObject({ status: "completed", outcome: "baseline" });
  });
});

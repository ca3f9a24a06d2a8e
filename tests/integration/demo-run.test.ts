import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createApiToken } from "@/server/api-tokens";
import { parseEnv, resetEnvForTests } from "@/server/env";
import { createHostGate } from "@/server/lib/host-gate";
import { setHostGate } from "@/server/lib/host-gate-instance";
import { createDemoApi, retryAfterMs } from "../../scripts/demo/demo-api";
import { demoAppEnv, demoRefreshLimit, PRELUDE_STEPS } from "../../scripts/demo/demo-app-env";
import { startDemoSite, type TDemoSite } from "../../scripts/demo/demo-site";
import { demoTrackers } from "../../scripts/demo/demo-trackers";
import { refreshDemoTrackers, setUpDemoTrackers } from "../../scripts/demo/play-demo";
import { schedulerNote } from "../../scripts/demo/scheduler-note";
import { signedInOwner } from "../helpers/auth";
import { createTestDb, type TTestDb } from "../helpers/db";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * `npm run demo` (docs/operations.md, "The demo") makes all its refreshes as one person through POST /api/v1/trackers/{id}/refresh,
 * which is rate-limited per person (docs/configuration.md, RATE_LIMIT_REFRESHES). Its prelude and first tick are
 * more than the default 20 a minute: it starts the app with a limit that fits, and waits out a 429 if one comes.
 */

const TICK_SECONDS = 45;
const TICKS = 6;
const TRACKERS = demoTrackers("http://site").length;
/** What the app parses from an environment that does not mention RATE_LIMIT_REFRESHES. */
const defaults = parseEnv({});

describe("the env the demo gives the app", () => {
  const base = { processEnv: {}, sitePort: 4545, tickSeconds: TICK_SECONDS, trackers: TRACKERS, keepDataDir: false };

  it("a refresh limit that holds the prelude and the ticks of one window, plus the usual allowance", () => {
    const { overrides, refreshLimit } = demoAppEnv({ ...base, seen: {}, env: defaults });
    // 4 trackers × (1 + 4 prelude steps + ⌈60 / 45⌉ ticks) = 28, on top of the default 20.
    expect(refreshLimit).toEqual({ limit: 48, windowSeconds: 60, demoNeeds: 28, setBy: "demo" });
    expect(overrides).toEqual({
      FETCH_ALLOW_HOSTS: "127.0.0.1:4545",
      DATA_DIR: "./.data-demo",
      RATE_LIMIT_REFRESHES: "48",
    });
    // The app's own scheduler keeps watch now: no cron secret, no cron route (docs/scheduling.md).
    expect(overrides).not.toHaveProperty("CRON_SECRET");
  });

  it("follows the window and the tick rate", () => {
    const seen = { RATE_LIMIT_REFRESH_WINDOW_SECONDS: "600" };
    const fast = demoRefreshLimit({ seen, env: parseEnv(seen), trackers: TRACKERS, tickSeconds: 20 });
    expect(fast).toMatchObject({ demoNeeds: 4 * (1 + PRELUDE_STEPS + 30), limit: 4 * 35 + 20, windowSeconds: 600 });
  });

  it("keeps a limit the person set (environment or .env), 0 = no limit included; adds to their allowed hosts", () => {
    for (const value of ["20", "0", "500"]) {
      const seen = { RATE_LIMIT_REFRESHES: value, FETCH_ALLOW_HOSTS: "intranet.example:8080" };
      const { overrides, refreshLimit } = demoAppEnv({ ...base, seen, env: parseEnv(seen) });
      expect(refreshLimit).toMatchObject({ limit: Number(value), setBy: "you" });
      expect(overrides).not.toHaveProperty("RATE_LIMIT_REFRESHES");
      expect(overrides.FETCH_ALLOW_HOSTS).toBe("intranet.example:8080,127.0.0.1:4545");
    }
  });

  it("leaves the database alone when one is configured", () => {
    const seen = { DATABASE_URL: "postgresql://u:p@db.example:5432/bw" };
    expect(demoAppEnv({ ...base, seen, env: parseEnv(seen) }).overrides).not.toHaveProperty("DATA_DIR");
    const dataDir = { ...base, processEnv: { DATA_DIR: "/var/lib/bw" } };
    expect(demoAppEnv({ ...dataDir, seen: dataDir.processEnv, env: defaults }).overrides).not.toHaveProperty(
      "DATA_DIR",
    );
    expect(demoAppEnv({ ...base, keepDataDir: true, seen: {}, env: defaults }).overrides).not.toHaveProperty(
      "DATA_DIR",
    );
  });

  it("says whether the app's own scheduler keeps watch, from /api/health", () => {
    const on = { ok: true, scheduler: { enabled: true, running: true, reason: "on by default (SCHEDULER=auto)" } };
    expect(schedulerNote(on)).toBe(
      "the app's own scheduler keeps watch (on by default (SCHEDULER=auto)): due trackers refresh on their schedule",
    );
    const off = { ok: true, scheduler: { enabled: false, running: false, reason: "turned off (SCHEDULER=off)" } };
    expect(schedulerNote(off)).toMatch(/^the app's scheduler is not running \(turned off \(SCHEDULER=off\)\)/);
  });
});

describe("Retry-After", () => {
  it("reads delay-seconds and HTTP dates; waits a little when there is none", () => {
    expect(retryAfterMs("12")).toBe(12_000);
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(retryAfterMs("Tue, 01 Jan 2030 00:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs(null)).toBe(5_000);
    expect(retryAfterMs("soon")).toBe(5_000);
  });
});

describe("the demo's refreshes against the real limiter", () => {
  let t: TTestDb;
  let token: string;
  const sites: TDemoSite[] = [];

  beforeAll(async () => {
    // The test moves a fake Date and the per-host gate times its gap by that clock (docs/scheduling.md, "Politeness
    // per host"): with a gap, a refresh waits for a Date that never moves on its own. The gate is not what this tests.
    setHostGate(createHostGate({ maxInFlight: 16, minGapMs: 0, maxWaitMs: 5_000 }));
    vi.stubEnv("AI_PROVIDER", "rules");
    resetEnvForTests();
    t = await createTestDb();
    const owner = await signedInOwner(t.db);
    token = (await createApiToken(t.db, { userId: owner.userId, name: "demo" })).token;
  });
  beforeEach(async () => {
    // Each case starts with fresh counts (the counter table is the only state the limits keep).
    await t.db.rateLimitCounter.deleteMany();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    setHostGate(undefined);
    vi.unstubAllEnvs();
    resetEnvForTests();
    for (const site of sites) await site.close();
    await t?.close();
  });

  /**
   * `npm run demo`'s sequence on a fresh database — trackers created, the prelude, then TICKS ticks TICK_SECONDS
   * apart — through the app's REST handler on a clock the test moves: the prelude starts 5 s into a limiter window,
   * so the first tick falls in the same window (as it does in a real run, the prelude taking a few seconds).
   */
  async function playDemo(refreshLimit: string) {
    vi.stubEnv("RATE_LIMIT_REFRESHES", refreshLimit);
    resetEnvForTests();
    const site = await startDemoSite(0);
    sites.push(site);
    const windowMs = defaults.RATE_LIMIT_REFRESH_WINDOW_SECONDS * 1000;
    vi.useFakeTimers({ toFake: ["Date"], now: Math.ceil(Date.now() / windowMs) * windowMs + windowMs + 5_000 });
    const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);

    const statuses: number[] = [];
    const waits: number[] = [];
    const refreshSeams = { models: { filler: null, judge: null }, capabilityConfig: localCapabilityConfig([site.url]) };
    const api = createDemoApi({
      appUrl: "http://127.0.0.1:3000",
      token,
      fetch: async (url, init) => {
        const res = await handleRestRequest(new Request(url, init), { db: t.db, refreshSeams });
        if (url.endsWith("/refresh")) statuses.push(res.status);
        return res;
      },
      sleep: async (ms) => {
        waits.push(ms);
        advance(ms);
      },
    });
    const say = () => {};
    const ids = await setUpDemoTrackers(api, site, say);
    for (let tick = 0; tick < TICKS; tick++) {
      advance(TICK_SECONDS * 1000);
      site.advance();
      await refreshDemoTrackers(api, ids, say);
    }
    const runs = await t.db.refreshRun.count({ where: { trackerId: { in: ids }, trigger: "api" } });
    return { ids, statuses, waits, runs };
  }

  const everyRefresh = TRACKERS * (1 + PRELUDE_STEPS + TICKS);

  it("under the limit the demo sets, the prelude and every tick pass without a 429", async () => {
    const { overrides } = demoAppEnv({
      processEnv: {},
      seen: {},
      env: defaults,
      sitePort: 4545,
      tickSeconds: TICK_SECONDS,
      trackers: TRACKERS,
      keepDataDir: false,
    });
    const { ids, statuses, waits, runs } = await playDemo(overrides.RATE_LIMIT_REFRESHES as string);
    expect(ids).toHaveLength(TRACKERS);
    expect(statuses).toHaveLength(everyRefresh);
    expect(statuses.every((s) => s === 201)).toBe(true);
    expect(waits).toEqual([]);
    expect(runs).toBe(everyRefresh);
  });

  it("under the default limit the first tick is refused; the demo waits Retry-After and the tick completes", async () => {
    expect(defaults.RATE_LIMIT_REFRESHES).toBe(20);
    const { statuses, waits, runs } = await playDemo(String(defaults.RATE_LIMIT_REFRESHES));
    // The prelude's 20 fill the window; the first tick's first refresh, 50 s in, is refused until the window ends.
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(statuses.indexOf(429)).toBe(TRACKERS * (1 + PRELUDE_STEPS));
    expect(waits).toEqual([10_000]);
    // Nothing is lost: every refresh the demo asked for was made.
    expect(statuses.filter((s) => s === 201)).toHaveLength(everyRefresh);
    expect(runs).toBe(everyRefresh);
  });
});

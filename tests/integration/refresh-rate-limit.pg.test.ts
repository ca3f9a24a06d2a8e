import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPostgresDb, type TDbHandle } from "@/server/db";
import { resetEnvForTests } from "@/server/env";
import { isAppError } from "@/server/errors";
import { createHostGate } from "@/server/lib/host-gate";
import { setHostGate } from "@/server/lib/host-gate-instance";
import { refreshTrackerNow } from "@/server/triggers";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";

/**
 * A person's refreshes on a real PostgreSQL, from two "instances" (separate clients and pools): the rate limit is
 * counted inside the lease statement (leaseAndLoad's `caller`), and stays atomic there — N refreshes at the same
 * moment allow exactly the limit, and each refused one takes no lease and records no run.
 */
const LIMIT = 5;
const TRACKERS = 12;
const definition = cssPriceDefinition(0.05);

describe.skipIf(!hasPostgres)("refresh rate limit on PostgreSQL", () => {
  let pg: TPostgresTestDb;
  let second: TDbHandle;
  let site: TFixtureSite;

  beforeAll(async () => {
    vi.stubEnv("RATE_LIMIT_REFRESHES", String(LIMIT));
    vi.stubEnv("RATE_LIMIT_REFRESH_WINDOW_SECONDS", "86400"); // no test straddles a window boundary
    resetEnvForTests();
    pg = await createPostgresTestDb();
    second = await createPostgresDb(pg.url);
    site = await startFixtureSite();
    setHostGate(createHostGate({ maxInFlight: 64, minGapMs: 0, maxWaitMs: 60_000 }));
  });
  afterAll(async () => {
    setHostGate(undefined);
    vi.unstubAllEnvs();
    resetEnvForTests();
    await site?.close();
    await second?.close();
    await pg?.drop();
  });

  const seams = () => ({
    models: { filler: null, judge: null },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
  });

  async function trackersOf(userId: string, prefix: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      site.setPage(`/${prefix}-${i}`, { body: priceBody(`$${i + 1}.00`) });
      const { tracker } = await createActiveTracker(pg.db, {
        userId,
        capability: "web.scrape",
        capabilityInput: { url: site.urlFor(`/${prefix}-${i}`) },
        definition,
      });
      ids.push(tracker.id);
    }
    return ids;
  }

  it(`${TRACKERS} parallel refreshes of one person's trackers from two instances allow exactly ${LIMIT}`, async () => {
    const alice = (await pg.db.user.create({ data: { name: "Alice", email: "alice@example.test" } })).id;
    const ids = await trackersOf(alice, "alice", TRACKERS);
    const answers = await Promise.allSettled(
      ids.map((trackerId, i) =>
        refreshTrackerNow(i % 2 ? second.db : pg.db, { userId: alice, trackerId, trigger: "api" }, seams()),
      ),
    );
    const done = answers.filter((a) => a.status === "fulfilled");
    const refused = answers.flatMap((a) => (a.status === "rejected" ? [a.reason as unknown] : []));
    expect(done).toHaveLength(LIMIT);
    for (const a of done) expect(a.value).toMatchObject({ status: "completed", outcome: "baseline" });
    expect(refused).toHaveLength(TRACKERS - LIMIT);
    for (const error of refused) {
      expect(isAppError(error) && error.code).toBe("TOO_MANY_REQUESTS");
      const retryAfter = isAppError(error) ? error.details?.retryAfterSeconds : undefined;
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
    }
    // A refused refresh took no lease and left no run.
    const trackers = await pg.db.tracker.findMany({ where: { id: { in: ids } } });
    expect(trackers.every((tr) => tr.leaseToken === null)).toBe(true);
    expect(await pg.db.refreshRun.count({ where: { trackerId: { in: ids } } })).toBe(LIMIT);
    const row = await pg.db.rateLimitCounter.findFirstOrThrow({ where: { userId: alice, action: "refresh" } });
    expect(row.count).toBe(LIMIT);
  });

  it("parallel refreshes of one tracker: each is counted once (in flight or not), the rest refused", async () => {
    const bob = (await pg.db.user.create({ data: { name: "Bob", email: "bob@example.test" } })).id;
    const [trackerId] = await trackersOf(bob, "bob", 1);
    if (!trackerId) throw new Error("no tracker");
    site.setPage("/bob-0", { body: priceBody("$1.00"), delayMs: 150 });
    const answers = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        refreshTrackerNow(i % 2 ? second.db : pg.db, { userId: bob, trackerId, trigger: "manual" }, seams()),
      ),
    );
    const done = answers.filter((a) => a.status === "fulfilled");
    expect(done).toHaveLength(LIMIT);
    expect(done.filter((a) => a.value.outcome === "baseline")).toHaveLength(1);
    for (const a of answers) {
      if (a.status === "rejected") expect(isAppError(a.reason) && a.reason.code).toBe("TOO_MANY_REQUESTS");
    }
    const row = await pg.db.rateLimitCounter.findFirstOrThrow({ where: { userId: bob, action: "refresh" } });
    expect(row.count).toBe(LIMIT);
    expect((await pg.db.tracker.findUniqueOrThrow({ where: { id: trackerId } })).leaseToken).toBeNull();
  });

  it("another person's tracker: NOT_FOUND from both instances, nothing leased or counted", async () => {
    const carol = (await pg.db.user.create({ data: { name: "Carol", email: "carol@example.test" } })).id;
    const dave = (await pg.db.user.create({ data: { name: "Dave", email: "dave@example.test" } })).id;
    const [trackerId] = await trackersOf(carol, "carol", 1);
    if (!trackerId) throw new Error("no tracker");
    const answers = await Promise.allSettled(
      [pg.db, second.db].map((db) => refreshTrackerNow(db, { userId: dave, trackerId, trigger: "api" }, seams())),
    );
    for (const a of answers) {
      expect(a.status).toBe("rejected");
      if (a.status === "rejected") expect(isAppError(a.reason) && a.reason.code).toBe("NOT_FOUND");
    }
    expect((await pg.db.tracker.findUniqueOrThrow({ where: { id: trackerId } })).leaseToken).toBeNull();
    expect(await pg.db.rateLimitCounter.count({ where: { userId: { in: [carol, dave] } } })).toBe(0);
  });
});

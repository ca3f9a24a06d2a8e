import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDb, type TDbHandle } from "@/server/db";
import { isAppError } from "@/server/errors";
import { consumeRateLimit, enforceRateLimit, type TRateLimits } from "@/server/usage";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";

/**
 * The rate-limit counter on a real PostgreSQL, shared by two "instances" (separate clients and pools): N calls at
 * the same moment allow exactly the limit, because one atomic INSERT … ON CONFLICT DO UPDATE … RETURNING counts
 * each call. Counts are per person and per action. Fixed `now` values keep every call in one window.
 */
const NOW = new Date("2026-12-01T10:00:30Z");

describe.skipIf(!hasPostgres)("rate limits on PostgreSQL", () => {
  let pg: TPostgresTestDb;
  let second: TDbHandle;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    pg = await createPostgresTestDb();
    second = await createPostgresDb(pg.url);
    alice = (await pg.db.user.create({ data: { name: "Alice", email: "alice@example.test" } })).id;
    bob = (await pg.db.user.create({ data: { name: "Bob", email: "bob@example.test" } })).id;
  });
  afterAll(async () => {
    await second?.close();
    await pg?.drop();
  });

  it("40 parallel calls from two instances allow exactly the limit of 10", async () => {
    const calls = Array.from({ length: 40 }, (_, i) =>
      consumeRateLimit(i % 2 === 0 ? pg.db : second.db, {
        userId: alice,
        action: "refresh",
        limit: 10,
        windowSeconds: 60,
        now: NOW,
      }),
    );
    const answers = await Promise.all(calls);
    const allowed = answers.filter((a) => a.allowed);
    expect(allowed).toHaveLength(10);
    // Each allowed call saw its own count: 1…10, no two the same.
    expect(allowed.map((a) => (a.allowed ? a.count : 0)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    // The refused ones are told when the window ends (10:01:00, 30 s after NOW).
    for (const a of answers) if (!a.allowed) expect(a.retryAfterSeconds).toBe(30);
    const row = await pg.db.rateLimitCounter.findFirstOrThrow({ where: { userId: alice, action: "refresh" } });
    expect(row.count).toBe(10);
  });

  it("is per person and per action, and a new window starts afresh and prunes the old one", async () => {
    const limits: TRateLimits = {
      refresh: { limit: 10, windowSeconds: 60 },
      "setup-turn": { limit: 1, windowSeconds: 60 },
      replay: { limit: 1, windowSeconds: 60 },
    };
    // Alice's refresh window (previous test) is full; Bob's and Alice's setup turns are not.
    await expect(enforceRateLimit(pg.db, { userId: alice, action: "refresh", now: NOW, limits })).rejects.toSatisfy(
      (e) => isAppError(e) && e.code === "TOO_MANY_REQUESTS",
    );
    await enforceRateLimit(second.db, { userId: bob, action: "refresh", now: NOW, limits });
    await enforceRateLimit(pg.db, { userId: alice, action: "setup-turn", now: NOW, limits });

    const nextWindow = new Date(NOW.getTime() + 60_000);
    await enforceRateLimit(pg.db, { userId: alice, action: "refresh", now: nextWindow, limits });
    const rows = await pg.db.rateLimitCounter.findMany({ where: { userId: alice, action: "refresh" } });
    expect(rows.map((r) => [r.windowStart.toISOString(), r.count])).toEqual([["2026-12-01T10:01:00.000Z", 1]]);
  });
});

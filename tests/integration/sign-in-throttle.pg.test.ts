import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimSignInAttempt, signInThrottleFromEnv } from "@/server/auth/sign-in-throttle";
import { createPostgresDb, type TDbHandle } from "@/server/db";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";

/**
 * The per-email sign-in throttle on a real PostgreSQL shared by two "instances" (separate clients and pools): guesses
 * at the same moment from both get exactly the free attempts, because one atomic INSERT … ON CONFLICT DO UPDATE …
 * RETURNING counts each before its password would be checked; and the wait is read back across instances.
 */
const NOW = new Date("2026-12-06T12:00:00Z");
const policy = signInThrottleFromEnv({ SIGN_IN_THROTTLE_AFTER: 5, SIGN_IN_THROTTLE_MAX_SECONDS: 900 });

describe.skipIf(!hasPostgres)("the sign-in throttle on PostgreSQL", () => {
  let pg: TPostgresTestDb;
  let second: TDbHandle;

  beforeAll(async () => {
    pg = await createPostgresTestDb();
    second = await createPostgresDb(pg.url);
  });
  afterAll(async () => {
    await second?.close();
    await pg?.drop();
  });

  it("40 parallel guesses for one email from two instances get exactly 5 attempts", async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        claimSignInAttempt(i % 2 === 0 ? pg.db : second.db, { email: "olive@example.com", policy, now: NOW }),
      ),
    );
    expect(answers.filter((a) => a.allowed)).toHaveLength(5);
    expect(answers.filter((a) => !a.allowed)).toHaveLength(35);
    for (const answer of answers) if (!answer.allowed) expect(answer.retryAfterSeconds).toBe(15);
    // Fifteen seconds on, either instance lets exactly one more through.
    const later = new Date(NOW.getTime() + 15_000);
    const next = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        claimSignInAttempt(i % 2 === 0 ? second.db : pg.db, { email: "olive@example.com", policy, now: later }),
      ),
    );
    expect(next.filter((a) => a.allowed)).toEqual([{ allowed: true, failures: 6 }]);
  });
});

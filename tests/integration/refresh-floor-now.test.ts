import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createCaller } from "@/server/api/root";
import { resolveSessionUser } from "@/server/api/session-user";
import { createApiToken } from "@/server/api-tokens";
import { resetEnvForTests } from "@/server/env";
import { createHostGate } from "@/server/lib/host-gate";
import { setHostGate } from "@/server/lib/host-gate-instance";
import { countedOn } from "../bench/sql-counter";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { browserHeaders, signedInOwner } from "../helpers/auth";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * The floor of a person's own refresh (issue "a manual or API refresh of an unchanged page at ≤ 3 statements"): the
 * caller's authentication, then what a scheduled refresh costs — ONE lease statement (which also checks the owner,
 * answers a replay and counts the rate limit) and ONE final write. Counted as the statements the Prisma adapter sends
 * to PGlite, through the real route handler (an API token) and the tRPC router (a session cookie).
 */

const definition = cssPriceDefinition(0.05);
const LIMIT = 50;

let t: TTestDb;
let site: TFixtureSite;
let owner: { userId: string; cookie: string; token: string };
let otherToken: string;

beforeAll(async () => {
  vi.stubEnv("RATE_LIMIT_REFRESHES", String(LIMIT));
  vi.stubEnv("RATE_LIMIT_REFRESH_WINDOW_SECONDS", "86400"); // no test straddles a window boundary
  vi.stubEnv("AI_PROVIDER", "rules");
  resetEnvForTests();
  t = await createTestDb();
  site = await startFixtureSite();
  // tRPC refreshes read the capability config from the environment.
  vi.stubEnv("FETCH_ALLOW_HOSTS", new URL(site.url).host);
  resetEnvForTests();
  // Statements are counted here, not politeness (as in refresh-floor.test.ts).
  setHostGate(createHostGate({ maxInFlight: 64, minGapMs: 0, maxWaitMs: 60_000 }));
  const signedIn = await signedInOwner(t.db);
  owner = { ...signedIn, token: (await createApiToken(t.db, { userId: signedIn.userId, name: "ci" })).token };
  const other = await t.db.user.create({ data: { name: "Someone else", email: "other@example.test" } });
  otherToken = (await createApiToken(t.db, { userId: other.id, name: "theirs" })).token;
});
beforeEach(async () => {
  await t.db.rateLimitCounter.deleteMany();
});
afterAll(async () => {
  setHostGate(undefined);
  vi.unstubAllEnvs();
  resetEnvForTests();
  await site?.close();
  await t?.close();
});

async function trackerAt(path: string) {
  site.setPage(path, { body: priceBody("$10.00") });
  const { tracker } = await createActiveTracker(t.db, {
    userId: owner.userId,
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition,
  });
  return tracker.id;
}

/** `POST /api/v1/trackers/{id}/refresh` through the real handler. */
async function apiRefresh(trackerId: string, init: { token?: string; key?: string } = {}) {
  const response = await handleRestRequest(
    new Request(`http://app/api/v1/trackers/${trackerId}/refresh`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${init.token ?? owner.token}`,
        "content-type": "application/json",
        ...(init.key ? { "idempotency-key": init.key } : {}),
      },
      body: "",
    }),
    {
      db: t.db,
      refreshSeams: {
        models: { filler: null, judge: null },
        capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
      },
    },
  );
  return { status: response.status, body: await response.json() };
}

/** Runs `work` and returns what the database was sent meanwhile. */
const counted = <T>(work: () => Promise<T>) => countedOn(t.pglite, work);

const counterTotal = async () =>
  (await t.db.rateLimitCounter.findMany({ where: { userId: owner.userId, action: "refresh" } })).reduce(
    (sum, row) => sum + row.count,
    0,
  );
const leaseOf = async (trackerId: string) =>
  (await t.db.tracker.findUniqueOrThrow({ where: { id: trackerId } })).leaseToken;

describe("an API refresh of an unchanged page", () => {
  it("costs 3 statements: the token lookup, the lease (owner, replay and rate limit in it), the final write", async () => {
    const trackerId = await trackerAt("/api-floor");
    // The baseline; it also stamps the token's lastUsedAt (a write made at most once a minute).
    expect((await apiRefresh(trackerId)).body.run.outcome).toBe("baseline");

    const unchanged = await counted(() => apiRefresh(trackerId));
    expect(unchanged.value.status).toBe(201);
    expect(unchanged.value.body.run).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 0 });
    expect(unchanged.statements).toBeLessThanOrEqual(3);
    expect(unchanged.transactions).toBe(0);
    // The count rode in the lease statement: no statement of its own on the counter table.
    const onCounter = unchanged.sent.filter((sql) => sql.includes('"RateLimitCounter"'));
    expect(onCounter).toHaveLength(1);
    expect(onCounter[0]).toMatch(/UPDATE "Tracker"/);
    expect(await counterTotal()).toBe(2); // the baseline's and this one

    // With an Idempotency-Key: the same three (the lease answers whether the key has a run).
    const keyed = await counted(() => apiRefresh(trackerId, { key: "floor-key-1" }));
    expect(keyed.value.status).toBe(201);
    expect(keyed.value.body.run).toMatchObject({ outcome: "unchanged", replayed: false });
    expect(keyed.statements).toBeLessThanOrEqual(3);
    expect(await counterTotal()).toBe(3);

    // Its replay: the token lookup and the lease statement, which answers from the run; not counted.
    const replay = await counted(() => apiRefresh(trackerId, { key: "floor-key-1" }));
    expect(replay.value.status).toBe(200);
    expect(replay.value.body.run).toMatchObject({ runId: keyed.value.body.run.runId, replayed: true });
    expect(replay.statements).toBeLessThanOrEqual(2);
    expect(await counterTotal()).toBe(3);
  });

  it("another person's tracker is NOT_FOUND: nothing leased, nothing counted, no statement more", async () => {
    const trackerId = await trackerAt("/api-theirs");
    const theirs = await counted(() => apiRefresh(trackerId, { token: otherToken }));
    expect(theirs.value.status).toBe(404);
    expect(theirs.value.body.error.code).toBe("NOT_FOUND");
    expect(theirs.statements).toBeLessThanOrEqual(3); // the token (+ its first lastUsedAt stamp), the lease
    expect(await leaseOf(trackerId)).toBeNull();
    expect(await t.db.rateLimitCounter.count()).toBe(0);
    expect(await t.db.refreshRun.count({ where: { trackerId } })).toBe(0);
  });

  it("over the limit: 429 with Retry-After from the lease statement, no lease taken, no run", async () => {
    const trackerId = await trackerAt("/api-full");
    expect((await apiRefresh(trackerId)).status).toBe(201);
    await t.db.rateLimitCounter.updateMany({ where: { userId: owner.userId }, data: { count: LIMIT } });
    const runs = await t.db.refreshRun.count({ where: { trackerId } });

    const refused = await counted(() => apiRefresh(trackerId));
    expect(refused.value.status).toBe(429);
    expect(refused.value.body.error.code).toBe("TOO_MANY_REQUESTS");
    expect(refused.value.body.error.message).toMatch(/^Too many refreshes — try again in \d+ s\.$/);
    expect(refused.value.body.error.details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.statements).toBeLessThanOrEqual(2);
    expect(await leaseOf(trackerId)).toBeNull();
    expect(await t.db.refreshRun.count({ where: { trackerId } })).toBe(runs);
    expect(await counterTotal()).toBe(LIMIT);
  });

  it("an archived tracker is PRECONDITION_FAILED and not counted", async () => {
    const trackerId = await trackerAt("/api-archived");
    await t.db.tracker.update({ where: { id: trackerId }, data: { status: "archived" } });
    const archived = await apiRefresh(trackerId);
    expect(archived.status).toBe(412);
    expect(archived.body.error.code).toBe("PRECONDITION_FAILED");
    expect(await t.db.rateLimitCounter.count()).toBe(0);
  });
});

describe("Refresh now (tRPC) of an unchanged page", () => {
  it("costs the session read, then the lease and the final write", async () => {
    const trackerId = await trackerAt("/ui-floor");
    const refreshNow = async () => {
      // What createTRPCContext does for a request: the session cookie's user (better-auth, no cookie cache).
      const user = await resolveSessionUser(t.db, browserHeaders(owner.cookie));
      return createCaller(testTrpcContext(t.db, user)).tracker.refresh({ trackerId });
    };
    expect((await refreshNow()).outcome).toBe("baseline");

    const session = await counted(() => resolveSessionUser(t.db, browserHeaders(owner.cookie)));
    expect(session.value?.id).toBe(owner.userId);
    // better-auth's session lookup, not cached (no cookie cache: a revoked session stops at once): the Session row by
    // its token, then its User — two statements (its Prisma adapter joins by a second query).
    expect(session.statements).toBeLessThanOrEqual(2);
    const unchanged = await counted(refreshNow);
    expect(unchanged.value).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 0 });
    expect(unchanged.transactions).toBe(0);
    // After the session read: the lease statement (owner check and rate limit in it) and the final write.
    expect(unchanged.statements - session.statements).toBeLessThanOrEqual(2);
    expect(unchanged.sent.filter((sql) => sql.includes('"RateLimitCounter"'))).toHaveLength(1);
    expect(await counterTotal()).toBe(2);
  });

  it("another person's tracker is NOT_FOUND before any count", async () => {
    const trackerId = await trackerAt("/ui-theirs");
    const other = await t.db.user.findUniqueOrThrow({ where: { email: "other@example.test" } });
    const caller = createCaller(
      testTrpcContext(t.db, { id: other.id, name: other.name, email: other.email, role: "member" }),
    );
    const error = await caller.tracker.refresh({ trackerId }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe("NOT_FOUND");
    expect(await leaseOf(trackerId)).toBeNull();
    expect(await t.db.rateLimitCounter.count()).toBe(0);
  });
});

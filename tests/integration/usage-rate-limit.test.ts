import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { formatTrpcError } from "@/server/api/error-formatter";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createCaller } from "@/server/api/root";
import type { TSessionUser } from "@/server/api/session-user";
import { handleSetupTurnRequest } from "@/server/api/setup-turn-route";
import { createApiToken } from "@/server/api-tokens";
import { createInvite } from "@/server/auth";
import { resetEnvForTests } from "@/server/env";
import { isAppError } from "@/server/errors";
import { createSetupSession } from "@/server/intelligence/setup";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { authRequest, createTestAuth, sessionCookieFrom, signedInOwner } from "../helpers/auth";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * docs/design.md §9: costly endpoints are rate-limited per person — POST /api/v1/trackers/{id}/refresh, tRPC tracker.refresh
 * and tracker.refreshProgress ("Refresh now") share one refresh count; setup turns have their own. Over the limit:
 * 429 with Retry-After (REST, setup route) or TOO_MANY_REQUESTS with details.retryAfterSeconds (tRPC), nothing
 * done; another person is unaffected. The windows are a day long here so no test straddles a window boundary.
 */

const LIMIT = 2;
const WINDOW_SECONDS = 86_400;

const page = (price: string) => `<main><p>Price <span id="price">${price}</span></p></main>`;
const definition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

let t: TTestDb;
let site: TFixtureSite;
const people: Record<"owner" | "member", { user: TSessionUser; cookie: string; token: string; trackerId: string }> =
  {} as never;
const pending: Promise<void>[] = [];

beforeAll(async () => {
  vi.stubEnv("RATE_LIMIT_REFRESHES", String(LIMIT));
  vi.stubEnv("RATE_LIMIT_REFRESH_WINDOW_SECONDS", String(WINDOW_SECONDS));
  vi.stubEnv("RATE_LIMIT_SETUP_TURNS", String(LIMIT));
  vi.stubEnv("RATE_LIMIT_SETUP_WINDOW_SECONDS", String(WINDOW_SECONDS));
  vi.stubEnv("AI_PROVIDER", "rules");
  resetEnvForTests();
  t = await createTestDb();
  site = await startFixtureSite();
  site.setPage("/price", { body: page("100") });
  // tRPC refreshes read the capability config from the environment.
  vi.stubEnv("FETCH_ALLOW_HOSTS", new URL(site.url).host);
  resetEnvForTests();

  const owner = await signedInOwner(t.db);
  // A second person, invited by the owner, signed in through the real auth handler.
  const { token: inviteToken } = await createInvite(t.db, { userId: owner.userId });
  const auth = createTestAuth(t.db);
  const created = await auth.handler(
    authRequest("/account/create", {
      name: "Member",
      email: "member@example.test",
      password: "correct horse battery",
      inviteToken,
    }),
  );
  const memberCookie = sessionCookieFrom(created);
  const member = await t.db.user.findUniqueOrThrow({ where: { email: "member@example.test" } });

  for (const [key, row, cookie] of [
    ["owner", await t.db.user.findUniqueOrThrow({ where: { id: owner.userId } }), owner.cookie],
    ["member", member, memberCookie],
  ] as const) {
    const { tracker } = await createActiveTracker(t.db, {
      userId: row.id,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/price") },
      definition,
    });
    people[key] = {
      user: { id: row.id, name: row.name, email: row.email ?? "", role: row.role },
      cookie,
      token: (await createApiToken(t.db, { userId: row.id, name: "ci" })).token,
      trackerId: tracker.id,
    };
  }
});
beforeEach(async () => {
  // Each case starts with fresh counts (the counter table is the only state the limits keep).
  await t.db.rateLimitCounter.deleteMany();
});
afterAll(async () => {
  await Promise.all(pending);
  vi.unstubAllEnvs();
  resetEnvForTests();
  await site?.close();
  await t?.close();
});

const seams = () => ({
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
});

async function apiRefresh(who: "owner" | "member", headers: Record<string, string> = {}) {
  const p = people[who];
  const response = await handleRestRequest(
    new Request(`http://app/api/v1/trackers/${p.trackerId}/refresh`, {
      method: "POST",
      headers: { authorization: `Bearer ${p.token}`, "content-type": "application/json", ...headers },
      body: "",
    }),
    { db: t.db, refreshSeams: seams() },
  );
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() };
}

const runCount = (who: "owner" | "member") => t.db.refreshRun.count({ where: { trackerId: people[who].trackerId } });

describe("REST refresh: 429 with Retry-After", () => {
  it("allows the limit, then refuses with Retry-After and does no work; the other person is unaffected", async () => {
    for (let i = 0; i < LIMIT; i++) expect((await apiRefresh("owner")).status).toBe(201);
    const runsBefore = await runCount("owner");

    const refused = await apiRefresh("owner");
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("TOO_MANY_REQUESTS");
    expect(refused.body.error.message).toMatch(/^Too many refreshes — try again in \d+ s\.$/);
    const retryAfter = Number(refused.retryAfter);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(refused.body.error.details.retryAfterSeconds).toBe(retryAfter);
    expect(refused.body.error.message).toContain(`${retryAfter} s`);
    expect(await runCount("owner")).toBe(runsBefore);

    // Counters are per person.
    expect((await apiRefresh("member")).status).toBe(201);
  });

  it("a replay of an existing run (same Idempotency-Key) is answered, not counted", async () => {
    const first = await apiRefresh("owner", { "idempotency-key": "replay-key-1" });
    expect(first.status).toBe(201);
    expect((await apiRefresh("owner")).status).toBe(201); // the limit is now reached
    expect((await apiRefresh("owner")).status).toBe(429);
    const replay = await apiRefresh("owner", { "idempotency-key": "replay-key-1" });
    expect(replay.status).toBe(200);
    expect(replay.body.run).toMatchObject({ runId: first.body.run.runId, replayed: true });
    // A new key is new work: refused.
    expect((await apiRefresh("owner", { "idempotency-key": "replay-key-2" })).status).toBe(429);
  });
});

describe("tRPC refresh: TOO_MANY_REQUESTS with details.retryAfterSeconds", () => {
  const caller = (who: "owner" | "member") => createCaller(testTrpcContext(t.db, people[who].user));

  async function refusal(call: () => Promise<unknown>): Promise<TRPCError> {
    const error = await call().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TRPCError);
    return error as TRPCError;
  }

  it("tracker.refresh and tracker.refreshProgress share the count; the error carries the retry time", async () => {
    expect((await caller("owner").tracker.refresh({ trackerId: people.owner.trackerId })).status).toBe("completed");
    // Refresh now with progress counts against the same limit.
    const stream = await caller("owner").tracker.refreshProgress({
      trackerId: people.owner.trackerId,
      idempotencyKey: "ui:first-click",
    });
    const events: unknown[] = [];
    for await (const event of stream) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "result", result: { status: "completed" } });

    const error = await refusal(() => caller("owner").tracker.refresh({ trackerId: people.owner.trackerId }));
    expect(error.code).toBe("TOO_MANY_REQUESTS");
    expect(error.message).toMatch(/^Too many refreshes — try again in \d+ s\.$/);
    expect(isAppError(error.cause)).toBe(true);
    const retryAfter = (error.cause as { details?: { retryAfterSeconds?: number } }).details?.retryAfterSeconds;
    expect(retryAfter).toBeGreaterThanOrEqual(1);

    // What the browser receives: the formatted error, with the code and the retry time in its data.
    const shape = formatTrpcError({
      error,
      shape: { message: error.message, code: -32029, data: { code: "TOO_MANY_REQUESTS", httpStatus: 429 } },
      path: "tracker.refresh",
      ctx: undefined,
    });
    expect(shape.data).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      appCode: "TOO_MANY_REQUESTS",
      httpStatus: 429,
      details: { retryAfterSeconds: retryAfter },
    });

    // The progress subscription is refused the same way (a new click, a new key).
    const refusedStream = await caller("owner").tracker.refreshProgress({
      trackerId: people.owner.trackerId,
      idempotencyKey: "ui:second-click",
    });
    // Raised while the stream starts (tRPC formats it for the wire like any procedure error, see above).
    const streamError = await (async () => {
      for await (const _ of refusedStream) {
        // nothing is expected before the refusal
      }
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAppError(streamError) && streamError.code).toBe("TOO_MANY_REQUESTS");
    expect(isAppError(streamError) && streamError.details?.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    // Another person's "Refresh now" still works.
    expect((await caller("member").tracker.refresh({ trackerId: people.member.trackerId })).status).toBe("completed");
  });

  it("another person's tracker is NOT_FOUND before any count (no existence leak through the limit)", async () => {
    for (let i = 0; i < LIMIT + 1; i++) {
      const error = await refusal(() => caller("member").tracker.refresh({ trackerId: people.owner.trackerId }));
      expect(error.code).toBe("NOT_FOUND");
    }
    expect((await caller("member").tracker.refresh({ trackerId: people.member.trackerId })).status).toBe("completed");
  });
});

describe("setup route: 429 with Retry-After", () => {
  const turn = (who: "owner" | "member", sessionId: string, text: string) =>
    handleSetupTurnRequest(
      new Request(`http://app/api/setup/${sessionId}`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: people[who].cookie },
        body: JSON.stringify({ message: { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }] } }),
      }),
      sessionId,
      {
        db: t.db,
        config: localCapabilityConfig([site.url]),
        model: null,
        waitUntil: (work) => void pending.push(work),
      },
    );

  it("allows the limit of turns, then 429 + Retry-After with nothing stored; another person is unaffected", async () => {
    const session = await createSetupSession(t.db, { userId: people.owner.user.id });
    for (let i = 0; i < LIMIT; i++) {
      const ok = await turn("owner", session.id, "Tell me if the shop changes its price");
      expect(ok.status).toBe(200);
      await ok.body?.cancel();
      await Promise.all(pending);
    }
    const stored = await t.db.setupMessage.count({ where: { sessionId: session.id } });

    const refused = await turn("owner", session.id, "And another thing");
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as {
      error: { code: string; message: string; details: Record<string, number> };
    };
    expect(body.error.code).toBe("TOO_MANY_REQUESTS");
    expect(body.error.message).toMatch(/^Too many setup messages — try again in \d+ s\.$/);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(body.error.details.retryAfterSeconds).toBe(retryAfter);
    expect(await t.db.setupMessage.count({ where: { sessionId: session.id } })).toBe(stored);

    const theirs = await createSetupSession(t.db, { userId: people.member.user.id });
    const other = await turn("member", theirs.id, "Tell me if the shop changes its price");
    expect(other.status).toBe(200);
    await other.body?.cancel();
  });

  it("refresh and setup counts are separate", async () => {
    for (let i = 0; i < LIMIT; i++) expect((await apiRefresh("owner")).status).toBe(201);
    const session = await createSetupSession(t.db, { userId: people.owner.user.id });
    const ok = await turn("owner", session.id, "Tell me if the shop changes its price");
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
  });
});

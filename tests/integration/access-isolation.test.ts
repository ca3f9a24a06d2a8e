import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { REST_ROUTES } from "@/server/api/rest/routes";
import { appRouter, createCaller } from "@/server/api/root";
import type { TSessionUser } from "@/server/api/session-user";
import { createApiToken } from "@/server/api-tokens";
import { createInvite } from "@/server/auth";
import { saveContextFile } from "@/server/context";
import { resetEnvForTests } from "@/server/env";
import { APP_ERROR_CODES, isAppError } from "@/server/errors";
import { createSetupSession } from "@/server/intelligence/setup";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * docs/design.md §9: every procedure and route requires its caller, and everything a person owns is reached only through
 * its owner — another person's id is NOT_FOUND, never FORBIDDEN. The procedures and routes are enumerated from the
 * routers themselves, so a new one without an entry in the tables below fails this test until it is covered.
 */

let t: TTestDb;
let owner: TSessionUser;
let other: TSessionUser;
/** The owner's rows, whose ids the other person tries. */
const mine = {
  trackerId: "",
  sessionId: "",
  tokenId: "",
  inviteId: "",
  authSessionId: "",
  channelId: "",
  fileId: "",
};
let otherToken = "";
let site: TFixtureSite;

beforeAll(async () => {
  // settings.searchPlaces asks the geocoder: a local fixture, never the network.
  site = await startFixtureSite();
  site.setJson("/v1/search", { results: [] });
  process.env.GEOCODING_BASE_URL = site.url;
  resetEnvForTests();
  t = await createTestDb();
  const a = await t.db.user.create({ data: { name: "Owner", email: "owner@example.test", role: "owner" } });
  const b = await t.db.user.create({ data: { name: "Other", email: "other@example.test", role: "member" } });
  owner = { id: a.id, name: a.name, email: a.email, role: "owner" };
  other = { id: b.id, name: b.name, email: b.email, role: "member" };
  await t.db.instance.create({ data: { ownerId: a.id } }).catch(() => {});
  const { tracker } = await createActiveTracker(t.db, {
    userId: a.id,
    capability: "web.scrape",
    capabilityInput: { url: "https://shop.example/mine" },
    definition: {
      fields: [{ name: "price", type: "number", description: "Price" }],
      identityRule: { kind: "canonical_url" },
      materiality: { price: { kind: "numeric", relative: 0.05 } },
    },
  });
  mine.trackerId = tracker.id;
  mine.sessionId = (await createSetupSession(t.db, { userId: a.id })).id;
  mine.fileId = (
    await saveContextFile(t.db, {
      userId: a.id,
      trackerId: tracker.id,
      name: "prices.txt",
      mediaType: "text/plain",
      bytes: new TextEncoder().encode("our price is 10.00"),
    })
  ).file.id;
  mine.tokenId = (await createApiToken(t.db, { userId: a.id, name: "mine" })).apiToken.id;
  mine.inviteId = (await createInvite(t.db, { userId: a.id })).invite.id;
  mine.authSessionId = (
    await t.db.session.create({
      data: { userId: a.id, token: "owner-session-token", expiresAt: new Date(Date.now() + 86_400_000) },
    })
  ).id;
  otherToken = (await createApiToken(t.db, { userId: b.id, name: "theirs" })).token;
  mine.channelId = (
    await t.db.notificationChannel.create({
      data: {
        userId: a.id,
        kind: "webhook",
        name: "mine",
        target: "https://hooks.example/mine",
        secret: "s".repeat(64),
        unsubscribeToken: "owner-unsubscribe-token",
      },
    })
  ).id;
});
afterAll(async () => {
  delete process.env.GEOCODING_BASE_URL;
  resetEnvForTests();
  await site?.close();
  await t?.close();
});

type TAccess =
  /** Names one of the owner's rows: the other person gets NOT_FOUND and nothing changes. */
  | { kind: "owned"; input: () => unknown }
  /** Acts on the caller's own things only: the other person's answer never contains the owner's ids. */
  | { kind: "own-scope"; input?: () => unknown }
  /** For the instance owner only (a role, not someone else's row): a member is FORBIDDEN. */
  | { kind: "owner-only"; input?: () => unknown }
  /** A bulk command over ids: the owner's ids are refused exactly like ids that do not exist (no existence leak). */
  | { kind: "bulk-owned"; input: (ids: string[]) => unknown };

const PROCEDURES: Record<string, TAccess> = {
  "feed.get": { kind: "own-scope" },
  "feed.refresh": { kind: "own-scope" },
  "feed.live": { kind: "own-scope" },
  "settings.feed": { kind: "own-scope" },
  "settings.usage": { kind: "own-scope" },
  "settings.searchPlaces": { kind: "own-scope", input: () => ({ query: "Lisbon" }) },
  "settings.updateFeed": {
    kind: "own-scope",
    input: () => ({
      locationName: null,
      latitude: null,
      longitude: null,
      timezone: null,
      calendarUrl: null,
      memory: "",
    }),
  },
  "setup.start": { kind: "own-scope" },
  "setup.openSessions": { kind: "own-scope" },
  "setup.state": { kind: "owned", input: () => ({ sessionId: mine.sessionId }) },
  "setup.saveDraft": { kind: "owned", input: () => ({ sessionId: mine.sessionId, definition: {} }) },
  "setup.lock": { kind: "owned", input: () => ({ sessionId: mine.sessionId }) },
  "setup.applyContextFiles": { kind: "owned", input: () => ({ sessionId: mine.sessionId }) },
  "setup.priceCandidates": { kind: "owned", input: () => ({ sessionId: mine.sessionId }) },
  "setup.choosePrice": { kind: "owned", input: () => ({ sessionId: mine.sessionId, index: 0 }) },
  "setup.setReadMode": { kind: "owned", input: () => ({ sessionId: mine.sessionId, render: "never" }) },
  "setup.pageView": { kind: "owned", input: () => ({ sessionId: mine.sessionId, which: "current" }) },
  "setup.pointAt": { kind: "owned", input: () => ({ sessionId: mine.sessionId, element: 0, field: null }) },
  "setup.pageShot": { kind: "owned", input: () => ({ sessionId: mine.sessionId }) },
  "setup.elementAt": { kind: "owned", input: () => ({ sessionId: mine.sessionId, x: 10, y: 10 }) },
  "setup.rereadPage": { kind: "owned", input: () => ({ sessionId: mine.sessionId }) },
  "setup.openEdit": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "system.status": { kind: "own-scope" },
  "system.details": { kind: "own-scope" },
  "system.scheduler": { kind: "own-scope" },
  "system.heartbeat": { kind: "own-scope", input: () => ({ intervalMs: 1000 }) },
  "user.me": { kind: "own-scope" },
  "tracker.list": { kind: "own-scope" },
  "tracker.listView": { kind: "own-scope", input: () => ({ show: "all" }) },
  "tracker.discardDraft": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.unfinishedSetups": { kind: "own-scope" },
  "tracker.discardSetup": { kind: "owned", input: () => ({ sessionId: mine.sessionId }) },
  "tracker.get": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.timeline": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.rejudged": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.replayPlan": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.replay": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.rejudgeHistory": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.series": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.runs": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.prunedRunDays": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.setMembers": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.setMember": { kind: "owned", input: () => ({ trackerId: mine.trackerId, key: "https://shop.example/a" }) },
  "tracker.memberChanges": {
    kind: "owned",
    input: () => ({ trackerId: mine.trackerId, key: "https://shop.example/a" }),
  },
  "tracker.refresh": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.refreshProgress": {
    kind: "owned",
    input: () => ({ trackerId: mine.trackerId, idempotencyKey: "k-12345678" }),
  },
  "tracker.events": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "tracker.setStatus": { kind: "owned", input: () => ({ trackerId: mine.trackerId, status: "paused" }) },
  "tracker.setStatusMany": { kind: "bulk-owned", input: (trackerIds) => ({ trackerIds, status: "archived" }) },
  "tracker.setSchedule": { kind: "owned", input: () => ({ trackerId: mine.trackerId, scheduleMinutes: 15 }) },
  "contextFile.list": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "contextFile.delete": { kind: "owned", input: () => ({ trackerId: mine.trackerId, fileId: mine.fileId }) },
  "apiToken.list": { kind: "own-scope" },
  "apiToken.create": { kind: "own-scope", input: () => ({ name: "someone's" }) },
  "apiToken.revoke": { kind: "owned", input: () => ({ tokenId: mine.tokenId }) },
  "account.sessions": { kind: "own-scope" },
  "account.revokeSession": { kind: "owned", input: () => ({ sessionId: mine.authSessionId }) },
  "account.access": { kind: "owner-only" },
  "account.setOpenSignUp": { kind: "owner-only", input: () => ({ open: true }) },
  "account.invites": { kind: "owner-only" },
  "account.createInvite": { kind: "owner-only", input: () => ({}) },
  "account.revokeInvite": { kind: "owner-only", input: () => ({ inviteId: mine.inviteId }) },
  "notification.channels": { kind: "own-scope" },
  "notification.createChannel": {
    kind: "own-scope",
    input: () => ({ kind: "webhook", target: "https://hooks.example/theirs" }),
  },
  "notification.deleteChannel": { kind: "owned", input: () => ({ channelId: mine.channelId }) },
  "notification.resumeChannel": { kind: "owned", input: () => ({ channelId: mine.channelId }) },
  "notification.revealSecret": { kind: "owned", input: () => ({ channelId: mine.channelId }) },
  "notification.sendTest": { kind: "owned", input: () => ({ channelId: mine.channelId }) },
  "notification.deliveries": { kind: "owned", input: () => ({ channelId: mine.channelId }) },
  "notification.defaults": { kind: "own-scope" },
  "notification.updateDefaults": {
    kind: "own-scope",
    input: () => ({
      material: "off",
      notable: "off",
      failing: false,
      quietStartMinute: null,
      quietEndMinute: null,
      digestHour: 8,
    }),
  },
  "notification.trackerRouting": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "notification.updateTrackerRouting": {
    kind: "owned",
    input: () => ({ trackerId: mine.trackerId, material: "off", notable: null, failing: null }),
  },
  "notification.inbox": { kind: "own-scope", input: () => ({}) },
  "notification.unreadCount": { kind: "own-scope" },
  "notification.markRead": { kind: "own-scope", input: () => ({}) },
  "notification.feedStatus": { kind: "own-scope" },
  "notification.rotateFeed": { kind: "owned", input: () => ({ trackerId: mine.trackerId }) },
  "notification.revokeFeed": { kind: "own-scope", input: () => ({ trackerId: mine.trackerId }) },
};

const procedures = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>,
).map(([path, procedure]) => ({ path, type: procedure._def.type }));

/** Calls one procedure as `user`; subscriptions are started and read once (the middleware runs first). */
async function call(path: string, user: TSessionUser | null, input: unknown): Promise<unknown> {
  const caller = createCaller(testTrpcContext(t.db, user)) as unknown as Record<
    string,
    Record<string, (i: unknown) => unknown>
  >;
  const [router, name] = path.split(".") as [string, string];
  const result = await caller[router]?.[name]?.(input);
  if (result && typeof result === "object" && Symbol.asyncIterator in result) {
    const iterator = (result as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    const first = await Promise.race([iterator.next(), new Promise((r) => setTimeout(() => r("quiet"), 300))]);
    // Not awaited: a generator waiting for its next event finishes its return only when that event comes.
    void iterator.return?.();
    return first;
  }
  return result;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "OK";
  } catch (error) {
    // Errors raised while a subscription runs arrive as the domain's AppError; map them like the wire does.
    if (isAppError(error)) return APP_ERROR_CODES[error.code].trpc;
    return error instanceof TRPCError ? error.code : `not a TRPCError: ${String(error)}`;
  }
}

/** Everything of the owner's that must not leak: a snapshot compared before and after the other person's calls. */
async function ownerSnapshot() {
  return JSON.stringify([
    await t.db.tracker.findUnique({ where: { id: mine.trackerId }, select: { status: true, scheduleMinutes: true } }),
    await t.db.setupSession.findUnique({ where: { id: mine.sessionId }, select: { status: true } }),
    await t.db.apiToken.findUnique({ where: { id: mine.tokenId }, select: { revokedAt: true } }),
    await t.db.session.findUnique({ where: { id: mine.authSessionId }, select: { id: true } }),
    await t.db.invite.findUnique({ where: { id: mine.inviteId } }),
    await t.db.refreshRun.count({ where: { trackerId: mine.trackerId } }),
    await t.db.notificationChannel.findUnique({ where: { id: mine.channelId } }),
    await t.db.trackerNotificationRoute.findUnique({ where: { trackerId: mine.trackerId } }),
    await t.db.contextFile.findUnique({ where: { id: mine.fileId }, select: { id: true } }),
  ]);
}

describe("every tRPC procedure", () => {
  it("is in the access table (a new procedure must be added here)", () => {
    expect(procedures.map((p) => p.path).sort()).toEqual(Object.keys(PROCEDURES).sort());
  });

  it.each(procedures.map((p) => [p.path, p.type] as const))(
    "%s (%s) without a session is UNAUTHORIZED",
    async (path) => {
      const access = PROCEDURES[path];
      const input = access?.kind === "bulk-owned" ? access.input([mine.trackerId]) : access?.input?.();
      expect(await codeOf(call(path, null, input))).toBe("UNAUTHORIZED");
    },
  );

  it.each(procedures.map((p) => [p.path, p.type] as const))(
    "%s (%s) as another person: NOT_FOUND for the owner's rows, own things only otherwise",
    async (path) => {
      const access = PROCEDURES[path] as TAccess;
      const before = await ownerSnapshot();
      if (access.kind === "owned") {
        expect(await codeOf(call(path, other, access.input()))).toBe("NOT_FOUND");
      } else if (access.kind === "bulk-owned") {
        const theirs = JSON.stringify(await call(path, other, access.input([mine.trackerId])));
        const nobody = JSON.stringify(await call(path, other, access.input(["no-such-tracker"])));
        expect(theirs.replaceAll(mine.trackerId, "ID")).toBe(nobody.replaceAll("no-such-tracker", "ID"));
        expect(theirs).toContain('"updated":[]');
      } else if (access.kind === "owner-only") {
        expect(await codeOf(call(path, other, access.input?.()))).toBe("FORBIDDEN");
      } else {
        const answer = JSON.stringify((await call(path, other, access.input?.())) ?? null);
        for (const id of Object.values(mine)) expect(answer).not.toContain(id);
      }
      expect(await ownerSnapshot()).toBe(before);
    },
  );

  it("the owner reaches their own rows with the same inputs (the NOT_FOUNDs above are about ownership)", async () => {
    expect(await codeOf(call("tracker.get", owner, { trackerId: mine.trackerId }))).toBe("OK");
    expect(await codeOf(call("setup.state", owner, { sessionId: mine.sessionId }))).toBe("OK");
    expect(await codeOf(call("account.invites", owner, undefined))).toBe("OK");
  });
});

describe("every REST route", () => {
  const rest = (method: string, path: string, token: string | null, body?: unknown) =>
    handleRestRequest(
      new Request(`http://app/api/v1${path}`, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
      { db: t.db },
    );
  const bodies: Record<string, unknown> = {
    createTracker: {
      decision: "x",
      capability: "web.scrape",
      capabilityInput: { url: "https://x.example" },
      definition: {},
    },
    setSchedule: { scheduleMinutes: 15 },
    setStatus: { status: "paused" },
    setNotificationRouting: { material: "off", notable: null, failing: null },
  };
  const concrete = (path: string) =>
    path.replace("{trackerId}", mine.trackerId).replace("{key}", encodeURIComponent("https://shop.example/a?b=1"));

  it.each(REST_ROUTES.map((r) => [r.method, r.path, r.operationId] as const))(
    "%s %s without a token is 401",
    async (method, path, op) => {
      const res = await rest(method, concrete(path), null, method === "GET" ? undefined : bodies[op]);
      expect(res.status).toBe(401);
    },
  );

  it.each(REST_ROUTES.map((r) => [r.method, r.path, r.operationId] as const))(
    "%s %s with another person's token: 404 for the owner's tracker, own things only otherwise",
    async (method, path, op) => {
      const before = await ownerSnapshot();
      const res = await rest(method, concrete(path), otherToken, method === "GET" ? undefined : bodies[op]);
      if (path.includes("{trackerId}")) expect(res.status).toBe(404);
      else expect(JSON.stringify(await res.json())).not.toContain(mine.trackerId);
      expect(await ownerSnapshot()).toBe(before);
    },
  );
});

import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { appRouter, createCaller } from "@/server/api/root";
import type { TTrpcContext } from "@/server/api/trpc";
import { createInvite, resolveSessionUser, type TAuth, type TSessionUser } from "@/server/auth";
import { detachedDefer } from "@/server/defer";
import { createLogger } from "@/server/logger";
import { authRequest, browserHeaders, createTestAuth, sessionCookieFrom, TEST_ORIGIN } from "../helpers/auth";
import { createTestDb, type TTestDb, truncateAll } from "../helpers/db";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * Accounts through the real better-auth handler (real Requests in, real Set-Cookie out) over a migrated PGlite,
 * and the tRPC router over HTTP with the context the app builds from those cookies.
 */
let t: TTestDb;
let auth: TAuth;
const OWNER = { name: "Olive", email: "olive@example.com", password: "correct horse battery" };
const log = createLogger({}, () => {});

beforeAll(async () => {
  t = await createTestDb();
  auth = createTestAuth(t.db);
});
afterAll(async () => t.close());
beforeEach(async () => truncateAll(t.db));

const post = (path: string, body: unknown, init?: { cookie?: string; origin?: string }) =>
  auth.handler(authRequest(path, body, init));

async function createOwner(): Promise<string> {
  const res = await post("/owner/create", OWNER);
  expect(res.status).toBe(200);
  return sessionCookieFrom(res);
}

async function callerFor(cookie: string | undefined) {
  const headers = browserHeaders(cookie);
  const user = await resolveSessionUser(t.db, headers);
  const ctx: TTrpcContext = testTrpcContext(t.db, user, { log, headers });
  return { caller: createCaller(ctx), user };
}

/** The tRPC HTTP handler with the app's way of learning the caller (the session cookie). */
function trpcHttp(request: Request) {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: async () => ({
      defer: detachedDefer,
      db: t.db,
      user: await resolveSessionUser(t.db, request.headers),
      log,
      requestId: "test",
      headers: request.headers,
    }),
  });
}

describe("the owner account", () => {
  it("is created once, gets an HTTP-only session cookie, and a second attempt is refused", async () => {
    const res = await post("/owner/create", { ...OWNER, email: "Olive@Example.com" });
    expect(res.status).toBe(200);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith("bellwether.session_token="));
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(await res.json()).toMatchObject({ user: { email: "olive@example.com", role: "owner" } });

    const user = await resolveSessionUser(t.db, browserHeaders(sessionCookieFrom(res)));
    expect(user).toMatchObject({ name: "Olive", email: "olive@example.com", role: "owner" });

    const again = await post("/owner/create", {
      name: "Mallory",
      email: "mallory@example.com",
      password: "another long one",
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: "OWNER_EXISTS" });
    expect(await t.db.user.count()).toBe(1);
  });

  it("refuses a weak password and a bad email with a sentence, creating nothing", async () => {
    const weak = await post("/owner/create", { ...OWNER, password: "short" });
    expect(weak.status).toBe(400);
    expect((await weak.json()).message).toBe("Use at least 10 characters for the password.");
    const email = await post("/owner/create", { ...OWNER, email: "not-an-email" });
    expect(email.status).toBe(400);
    expect((await email.json()).message).toMatch(/valid email/);
    expect(await t.db.user.count()).toBe(0);
  });

  it("concurrent create-owner requests make exactly one owner", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post("/owner/create", {
          name: `Owner ${i}`,
          email: `owner${i}@example.com`,
          password: "correct horse battery",
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await t.db.user.count({ where: { role: "owner" } })).toBe(1);
    expect(await t.db.user.count()).toBe(1);
    expect(await t.db.instance.count()).toBe(1);
  });
});

describe("sign-in and sign-out through the better-auth handler", () => {
  it("signs in with the right password only, and a signed-out cookie no longer works", async () => {
    await createOwner();
    const wrong = await post("/sign-in/email", { email: OWNER.email, password: "not the password" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: "INVALID_EMAIL_OR_PASSWORD" });
    expect(
      wrong.headers.getSetCookie().some((c) => c.startsWith("bellwether.session_token=") && !/Max-Age=0/.test(c)),
    ).toBe(false);

    const ok = await post("/sign-in/email", { email: OWNER.email, password: OWNER.password });
    expect(ok.status).toBe(200);
    const cookie = sessionCookieFrom(ok);
    expect(await resolveSessionUser(t.db, browserHeaders(cookie))).toMatchObject({ email: OWNER.email });

    const out = await post("/sign-out", {}, { cookie });
    expect(out.status).toBe(200);
    expect(await resolveSessionUser(t.db, browserHeaders(cookie))).toBeNull();
  });

  it("better-auth's own sign-up endpoint is closed (accounts come only through the gated endpoints)", async () => {
    await createOwner();
    const res = await post("/sign-up/email", {
      name: "Eve",
      email: "eve@example.com",
      password: "correct horse battery",
    });
    expect(res.status).toBe(400);
    expect(await t.db.user.count({ where: { email: "eve@example.com" } })).toBe(0);
  });

  it("does not offer better-auth's session listing (it would expose session tokens to scripts)", async () => {
    const cookie = await createOwner();
    const res = await auth.handler(
      new Request(`${TEST_ORIGIN}/api/auth/list-sessions`, { headers: browserHeaders(cookie) }),
    );
    expect(res.status).toBe(404);
  });

  it("a forged or tampered cookie is nobody", async () => {
    const cookie = await createOwner();
    expect(await resolveSessionUser(t.db, browserHeaders(`${cookie.slice(0, -4)}AAAA`))).toBeNull();
    expect(await resolveSessionUser(t.db, browserHeaders("bellwether.session_token=made-up.value"))).toBeNull();
  });

  it("changes the password: the old one stops working, other sessions are signed out", async () => {
    const first = await createOwner();
    const second = sessionCookieFrom(await post("/sign-in/email", { email: OWNER.email, password: OWNER.password }));
    const wrongCurrent = await post(
      "/change-password",
      { currentPassword: "not it at all", newPassword: "a brand new passphrase" },
      { cookie: first },
    );
    expect(wrongCurrent.status).toBe(400);
    const changed = await post(
      "/change-password",
      { currentPassword: OWNER.password, newPassword: "a brand new passphrase", revokeOtherSessions: true },
      { cookie: first },
    );
    expect(changed.status).toBe(200);
    expect(await resolveSessionUser(t.db, browserHeaders(second))).toBeNull();
    expect((await post("/sign-in/email", { email: OWNER.email, password: OWNER.password })).status).toBe(401);
    expect((await post("/sign-in/email", { email: OWNER.email, password: "a brand new passphrase" })).status).toBe(200);
  });
});

describe("tRPC with and without a session", () => {
  it("answers 401 UNAUTHORIZED on a protected procedure without a session, and the user with one", async () => {
    const anonymous = await trpcHttp(new Request(`${TEST_ORIGIN}/api/trpc/user.me`, { headers: browserHeaders() }));
    expect(anonymous.status).toBe(401);
    expect(JSON.stringify(await anonymous.json())).toContain("UNAUTHORIZED");

    const cookie = await createOwner();
    const signedIn = await trpcHttp(
      new Request(`${TEST_ORIGIN}/api/trpc/user.me`, { headers: browserHeaders(cookie) }),
    );
    expect(signedIn.status).toBe(200);
    expect(JSON.stringify(await signedIn.json())).toContain(OWNER.email);
  });

  it("lists the user's sessions without their tokens and revokes one", async () => {
    const first = await createOwner();
    const second = sessionCookieFrom(await post("/sign-in/email", { email: OWNER.email, password: OWNER.password }));
    const { caller } = await callerFor(first);
    const sessions = await caller.account.sessions();
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(JSON.stringify(sessions)).not.toContain(second.split("=")[1]?.split(".")[0]);
    const other = sessions.find((s) => !s.current);
    await caller.account.revokeSession({ sessionId: other?.id ?? "" });
    expect(await resolveSessionUser(t.db, browserHeaders(second))).toBeNull();
    expect(await resolveSessionUser(t.db, browserHeaders(first))).not.toBeNull();
    await expect(caller.account.revokeSession({ sessionId: other?.id ?? "" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});

describe("new accounts: invites and open sign-up", () => {
  const GUEST = { name: "Sam", email: "sam@example.com", password: "sam's long passphrase" };

  it("refuses sign-up before the owner exists and while open sign-up is off", async () => {
    const early = await post("/account/create", GUEST);
    expect(early.status).toBe(412);
    await createOwner();
    const closed = await post("/account/create", GUEST);
    expect(closed.status).toBe(403);
    expect(await closed.json()).toMatchObject({ code: "SIGN_UP_CLOSED" });
    expect(await t.db.user.count({ where: { email: GUEST.email } })).toBe(0);
  });

  it("lets anyone sign up while the owner has open sign-up on, as a member", async () => {
    const { caller } = await callerFor(await createOwner());
    await caller.account.setOpenSignUp({ open: true });
    const res = await post("/account/create", GUEST);
    expect(res.status).toBe(200);
    expect(await resolveSessionUser(t.db, browserHeaders(sessionCookieFrom(res)))).toMatchObject({ role: "member" });
    await caller.account.setOpenSignUp({ open: false });
    expect((await post("/account/create", { ...GUEST, email: "later@example.com" })).status).toBe(403);
  });

  it("an invite link works once; expired and withdrawn ones are refused with the reason", async () => {
    const { caller, user } = await callerFor(await createOwner());
    const { token } = await caller.account.createInvite({ note: "Sam" });
    const accepted = await post("/account/create", { ...GUEST, inviteToken: token });
    expect(accepted.status).toBe(200);
    const reused = await post("/account/create", { ...GUEST, email: "sam2@example.com", inviteToken: token });
    expect(reused.status).toBe(403);
    expect(await reused.json()).toMatchObject({ code: "INVITE_USED" });
    expect((await caller.account.invites())[0]).toMatchObject({ status: "used", usedBy: { email: GUEST.email } });

    const old = await createInvite(t.db, { userId: user?.id ?? "", now: new Date(Date.now() - 8 * 86_400_000) });
    const expired = await post("/account/create", { ...GUEST, email: "late@example.com", inviteToken: old.token });
    expect(expired.status).toBe(403);
    expect(await expired.json()).toMatchObject({ code: "INVITE_EXPIRED", message: expect.stringMatching(/expired/) });

    const withdrawn = await caller.account.createInvite({});
    await caller.account.revokeInvite({ inviteId: withdrawn.invite.id });
    const refused = await post("/account/create", { ...GUEST, email: "w@example.com", inviteToken: withdrawn.token });
    expect(await refused.json()).toMatchObject({ code: "INVITE_REVOKED" });
    const unknown = await post("/account/create", { ...GUEST, email: "u@example.com", inviteToken: "made-up" });
    expect(await unknown.json()).toMatchObject({ code: "INVITE_UNKNOWN" });
    expect(await t.db.user.count()).toBe(2);
  });

  it("tells a stranger nothing about who has an account: taken and free emails get the same answer", async () => {
    const { caller } = await callerFor(await createOwner());
    const { token } = await caller.account.createInvite({ note: "Sam" });
    expect((await post("/account/create", { ...GUEST, inviteToken: token })).status).toBe(200);
    const answer = async (body: Record<string, unknown>) => {
      const res = await post("/account/create", body);
      return { status: res.status, body: await res.json() };
    };
    // Sign-up closed, no invite; then a made-up invite; then a used one.
    for (const extra of [{}, { inviteToken: "made-up" }, { inviteToken: token }]) {
      const taken = await answer({ ...GUEST, ...extra });
      const free = await answer({ ...GUEST, email: "nobody-yet@example.com", ...extra });
      expect(taken.status).toBe(403);
      expect(taken).toEqual(free);
    }
  });

  it("two people racing for one invite link make one account", async () => {
    const { caller } = await callerFor(await createOwner());
    const { token } = await caller.account.createInvite({});
    const results = await Promise.all(
      ["a", "b", "c"].map((n) => post("/account/create", { ...GUEST, email: `${n}@example.com`, inviteToken: token })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 403, 403]);
    expect(await t.db.user.count({ where: { role: "member" } })).toBe(1);
  });

  it("members cannot manage invites or sign-up, nor see the owner's trackers", async () => {
    const { caller: owner, user: ownerUser } = await callerFor(await createOwner());
    const tracker = await t.db.tracker.create({
      data: { userId: ownerUser?.id ?? "", decision: "Owner's", capability: "web.scrape", capabilityInput: {} },
    });
    await owner.account.setOpenSignUp({ open: true });
    const { caller: member, user } = await callerFor(sessionCookieFrom(await post("/account/create", GUEST)));
    expect((user as TSessionUser).role).toBe("member");
    await expect(member.account.invites()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(member.account.setOpenSignUp({ open: false })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(member.tracker.get({ trackerId: tracker.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await member.tracker.list()).toEqual([]);
  });
});

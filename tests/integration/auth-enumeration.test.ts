import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TAuth } from "@/server/auth";
import { authRequest, createTestAuth } from "../helpers/auth";
import { createTestDb, type TTestDb } from "../helpers/db";

/**
 * No account enumeration on any route a stranger can reach: for every unauthenticated auth route that takes an email,
 * an email that has an account and one that does not get the same status and the same body. The routes are read from
 * better-auth's own endpoint table, so a route added later (a plugin, a newer better-auth) fails here until it is
 * listed below with a body to try, or as one that takes no email.
 */

let t: TTestDb;
let auth: TAuth;
const TAKEN = "olive@example.com";
const FREE = "nobody-here@example.com";
const PASSWORD = "correct horse battery";

/** Each route that takes an email, with the body a stranger would send (`email` is filled in). */
const WITH_EMAIL: Record<string, Record<string, unknown>> = {
  "/sign-in/email": { password: "a wrong password" },
  "/sign-up/email": { name: "Stranger", password: PASSWORD },
  "/account/create": { name: "Stranger", password: PASSWORD },
  "/owner/create": { name: "Stranger", password: PASSWORD },
  "/request-password-reset": { redirectTo: "/" },
  "/send-verification-email": {},
  "/change-email": { newEmail: "" },
};
/** Routes that take no email, or need a session or a token first: nothing to compare. */
const NO_EMAIL = new Set([
  "/ok",
  "/error",
  "/get-session",
  "/sign-out",
  "/reset-password",
  "/reset-password/:token",
  "/verify-password",
  "/verify-email",
  "/update-user",
  "/delete-user",
  "/delete-user/callback",
  "/change-password",
  "/update-session",
  "/revoke-session",
  "/revoke-sessions",
  "/revoke-other-sessions",
  "/list-sessions",
  "/link-social",
  "/list-accounts",
  "/unlink-account",
  "/refresh-token",
  "/get-access-token",
  "/account-info",
  "/sign-in/social",
  "/callback/:id",
]);

beforeAll(async () => {
  t = await createTestDb();
  auth = createTestAuth(t.db);
  const owner = await auth.handler(authRequest("/owner/create", { name: "Olive", email: TAKEN, password: PASSWORD }));
  expect(owner.status).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

const answer = async (path: string, body: Record<string, unknown>) => {
  const res = await auth.handler(authRequest(path, body));
  return { status: res.status, body: await res.text() };
};

describe("a stranger learns nothing about who has an account", () => {
  it("every endpoint better-auth serves is listed here", () => {
    const paths = Object.values(auth.api as Record<string, { path?: string }>)
      .map((endpoint) => endpoint.path)
      .filter((p): p is string => typeof p === "string");
    const unlisted = paths.filter((p) => !(p in WITH_EMAIL) && !NO_EMAIL.has(p));
    expect(unlisted).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(["/sign-in/email", "/account/create", "/owner/create"]));
  });

  it.each(Object.entries(WITH_EMAIL))("%s answers a taken and a free email alike", async (path, extra) => {
    const fill = (email: string) =>
      Object.fromEntries(Object.entries({ email, ...extra }).map(([k, v]) => [k, v === "" ? email : v]));
    const taken = await answer(path, fill(TAKEN));
    const free = await answer(path, fill(FREE));
    expect(taken.status, `${path}: ${taken.body}`).toBeGreaterThanOrEqual(400);
    expect(free).toEqual(taken);
  });
});

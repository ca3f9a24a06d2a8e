import { createAuth, type TAuth, type TAuthConfig } from "@/server/auth";
import { setAuthForTests } from "@/server/auth/create-auth";
import { requestPolicyFromEnv } from "@/server/auth/request-guard";
import { signInThrottleFromEnv } from "@/server/auth/sign-in-throttle";
import type { TDb } from "@/server/db";

/** The app's origin in auth tests: requests carry it as Host and Origin, like a browser on a local install. */
export const TEST_ORIGIN = "http://127.0.0.1:3999";
export const TEST_HOST = "127.0.0.1:3999";

/**
 * A better-auth instance over a test database, registered so resolveSessionUser(db, …) uses it too. The per-address
 * limit is off and no header carries the address; the per-email sign-in throttle is on with its defaults.
 */
export function createTestAuth(db: TDb, overrides: Partial<TAuthConfig> = {}): TAuth {
  const auth = createAuth(db, {
    secret: "test-secret-test-secret-test-secret-0123456789",
    baseURL: TEST_ORIGIN,
    secureCookies: false,
    policy: requestPolicyFromEnv({ APP_URL: undefined, ALLOWED_HOSTS: [] }),
    rateLimit: false,
    clientAddressHeader: null,
    signInThrottle: signInThrottleFromEnv({ SIGN_IN_THROTTLE_AFTER: 5, SIGN_IN_THROTTLE_MAX_SECONDS: 900 }),
    ...overrides,
  });
  setAuthForTests(db, auth);
  return auth;
}

/** A POST to the auth handler as the app's own page would send it. */
export function authRequest(path: string, body: unknown, init: { cookie?: string; origin?: string } = {}): Request {
  const headers = new Headers({ "content-type": "application/json", host: TEST_HOST });
  headers.set("origin", init.origin ?? TEST_ORIGIN);
  if (init.cookie) headers.set("cookie", init.cookie);
  return new Request(`${TEST_ORIGIN}/api/auth${path}`, { method: "POST", headers, body: JSON.stringify(body) });
}

/** "name=value" of the session cookie a response set (what a browser would send back). */
export function sessionCookieFrom(response: Response): string {
  const cookie = response.headers
    .getSetCookie()
    .find((c) => c.startsWith("bellwether.session_token=") || c.startsWith("__Secure-bellwether.session_token="));
  if (!cookie) throw new Error(`no session cookie in the response (status ${response.status})`);
  return cookie.split(";")[0] ?? "";
}

/** Request headers a browser with this cookie sends. */
export function browserHeaders(cookie?: string): Headers {
  const headers = new Headers({ host: TEST_HOST });
  if (cookie) headers.set("cookie", cookie);
  return headers;
}

/**
 * Creates the owner account through the real auth handler (first run) and returns its id and the session
 * cookie a signed-in browser would send, for tests of routes that need a session.
 */
export async function signedInOwner(db: TDb): Promise<{ userId: string; cookie: string }> {
  const auth = createTestAuth(db);
  const email = "owner@example.test";
  const res = await auth.handler(
    authRequest("/owner/create", { name: "Owner", email, password: "correct horse battery" }),
  );
  const cookie = sessionCookieFrom(res);
  const user = await db.user.findUniqueOrThrow({ where: { email } });
  return { userId: user.id, cookie };
}

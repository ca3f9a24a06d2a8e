import { getSessionCookie } from "better-auth/cookies";

/** Cookie names start with this: `bellwether.session_token` (`__Secure-` prefixed behind https). */
export const AUTH_COOKIE_PREFIX = "bellwether";

/** Whether the request carries a session cookie at all (not whether it is valid: see resolveSessionUser). */
export function hasSessionCookie(headers: Headers): boolean {
  return getSessionCookie(headers, { cookiePrefix: AUTH_COOKIE_PREFIX }) !== null;
}

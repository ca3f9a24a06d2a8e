import type { TDb } from "../db";
import { getAuth } from "./create-auth";
import { hasSessionCookie } from "./session-cookie";

/**
 * The caller, as every route handler, the tRPC context and the pages see it. Structurally a subset of the User
 * row (tests pass a user row as the caller); `email` is null only for the legacy local user.
 */
export type TSessionUser = {
  id: string;
  name: string;
  email: string | null;
  role: "owner" | "member";
  /** The session row's id (Settings marks "this browser" with it); never the cookie's token. */
  sessionId?: string;
};

/**
 * Who is calling: the user of the session cookie in `headers`, or null when there is none, it is forged, expired
 * or revoked. THE one entry point for learning the caller (tRPC context, route handlers, server components);
 * better-auth verifies the cookie's signature and looks the session up in the database.
 */
export async function resolveSessionUser(db: TDb, headers: Headers): Promise<TSessionUser | null> {
  if (!hasSessionCookie(headers)) return null; // no cookie: no database round trip
  // Read-only here: a refresh must also renew the cookie, which only better-auth's own handler can send (the
  // header calls /api/auth/get-session once per page load for that).
  const found = await getAuth(db).api.getSession({ headers, query: { disableRefresh: true } });
  if (!found) return null;
  const { user, session } = found;
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role === "owner" ? "owner" : "member",
    sessionId: session.id,
  };
}

import { type NextRequest, NextResponse } from "next/server";
import { guardRequest, requestPolicyFromEnv } from "@/server/auth/request-guard";
import { contentSecurityPolicy, createNonce } from "@/server/auth/security-headers";
import { hasSessionCookie } from "@/server/auth/session-cookie";
import { getEnv } from "@/server/env";

/**
 * Runs before every request but static assets (Next 16's proxy, Node runtime). The one place for request hygiene
 * (server/auth/request-guard.ts): foreign Host headers are refused (DNS rebinding), and state-changing requests
 * must come from this app's own pages (CSRF) — tRPC mutations, the auth routes, the setup chat route, server
 * actions. Pages without a session cookie go to /sign-in at once; that check is only a fast path, the pages,
 * procedures and route handlers each verify the session itself. Pages get a per-request CSP nonce.
 */

/** Pages anyone may open: signing in and creating accounts, and robots.txt (app/robots.ts) for crawlers. */
const PUBLIC_PAGES = [/^\/sign-in$/, /^\/sign-up$/, /^\/setup-owner$/, /^\/invite\/[^/]+$/, /^\/robots\.txt$/];

export function proxy(request: NextRequest) {
  const env = getEnv();
  const policy = requestPolicyFromEnv(env);
  const { pathname, search } = request.nextUrl;

  const verdict = guardRequest({ method: request.method, pathname, headers: request.headers }, policy);
  if (!verdict.ok) {
    return NextResponse.json(
      { error: { code: verdict.status === 403 ? "FORBIDDEN" : "BAD_REQUEST", message: verdict.message } },
      { status: verdict.status, headers: { "cache-control": "no-store" } },
    );
  }
  // Route handlers answer for themselves (401 without a session; /api/v1 tokens, /api/cron secret, /api/health).
  if (pathname.startsWith("/api/")) return NextResponse.next();

  if (!PUBLIC_PAGES.some((page) => page.test(pathname)) && !hasSessionCookie(request.headers)) {
    // Next sends a same-origin redirect as a relative Location, so the browser stays on the host it used.
    const signIn = request.nextUrl.clone();
    signIn.pathname = "/sign-in";
    signIn.search = pathname === "/" ? "" : `?next=${encodeURIComponent(`${pathname}${search}`)}`;
    return NextResponse.redirect(signIn);
  }

  const nonce = createNonce();
  const csp = contentSecurityPolicy({
    nonce,
    dev: env.NODE_ENV === "development",
    https: policy.appOrigin?.startsWith("https:") ?? false,
  });
  // Next reads the nonce from the request's CSP header and puts it on its own scripts.
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", csp);
  headers.set("x-nonce", nonce);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon\\.ico|icon\\.svg).*)"],
};

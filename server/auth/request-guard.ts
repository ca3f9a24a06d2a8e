import type { TEnv } from "../env";

/**
 * Request hygiene in one place (called by the Next proxy for every request): which Host headers the app
 * answers, and whether a state-changing request comes from this app's own pages. Pure functions on plain
 * values, so they are unit-tested without a server.
 *
 * - Host: a browser tricked by DNS rebinding sends the attacker's host name, so answering only known names
 *   keeps a local install's API out of reach of web pages on other sites.
 * - Origin: a cross-site form or fetch carries the other site's Origin; refusing it stops CSRF on tRPC
 *   mutations, the auth routes, the setup chat route and server actions.
 */

export type TRequestPolicy = {
  /** Allowed Host values: "name" (any port) or "name:port", lower-case; IPv6 in brackets. */
  allowedHosts: string[];
  /** APP_URL's origin when configured ("https://bellwether.example.com"). */
  appOrigin: string | null;
};

export type TGuardVerdict = { ok: true } | { ok: false; status: 400 | 403 | 421; message: string };

const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function requestPolicyFromEnv(env: Pick<TEnv, "APP_URL" | "ALLOWED_HOSTS">): TRequestPolicy {
  const app = env.APP_URL ? new URL(env.APP_URL) : null;
  const hosts = [...LOCAL_HOSTS, ...(app ? [app.host.toLowerCase()] : []), ...env.ALLOWED_HOSTS];
  return { allowedHosts: [...new Set(hosts)], appOrigin: app ? app.origin : null };
}

/** Splits "Name:8080" / "[::1]:3000" / "example.com" into a lower-case name and an optional port. */
function splitHost(host: string): { name: string; port: string | null } | null {
  const value = host.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match?.[1]) return null;
  return { name: match[1], port: match[2] ?? null };
}

export function isAllowedHost(host: string | null, policy: TRequestPolicy): boolean {
  if (!host) return false;
  const got = splitHost(host);
  if (!got) return false;
  return policy.allowedHosts.some((entry) => {
    const want = splitHost(entry);
    if (!want || want.name !== got.name) return false;
    return want.port === null || want.port === (got.port ?? null);
  });
}

/** Paths whose callers are not browsers and authenticate with a secret or token, so Origin means nothing there. */
function isOriginExempt(pathname: string): boolean {
  // The email one-click unsubscribe (RFC 8058) is posted by mail providers, authenticated by its token alone.
  return (
    pathname.startsWith("/api/v1/") ||
    pathname === "/api/v1" ||
    pathname.startsWith("/api/cron/") ||
    pathname.startsWith("/api/notifications/unsubscribe/")
  );
}

/** The origin of a URL-ish header value, or null when it is absent, "null" or unparseable. */
function originOf(value: string | null): string | null {
  if (!value || value === "null") return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

function isSameOrigin(origin: string, host: string, policy: TRequestPolicy): boolean {
  if (policy.appOrigin && origin === policy.appOrigin) return true;
  return new URL(origin).host === host.trim().toLowerCase();
}

function isDecodable(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

export type TGuardInput = {
  method: string;
  pathname: string;
  headers: Headers;
};

/**
 * The verdict for one request. Host first (every path but /api/health, which load balancers probe by IP);
 * then, for state-changing methods outside /api/v1 and /api/cron, the request must come from this app:
 * its Origin (or, when a browser sends none, its Referer) must be this host or APP_URL. A request with
 * neither header and no cookie is a non-browser client with no ambient credentials, so it passes; with a
 * cookie it is refused, since only a browser session could be abused.
 */
export function guardRequest(input: TGuardInput, policy: TRequestPolicy): TGuardVerdict {
  const host = input.headers.get("host");
  if (input.pathname !== "/api/health" && !isAllowedHost(host, policy)) {
    return {
      ok: false,
      status: 421,
      message: `This server does not answer for the host "${host ?? ""}". Set APP_URL or ALLOWED_HOSTS to allow it.`,
    };
  }
  // A path that is not valid percent-encoding (`%ZZ`, an escaped lone surrogate) names nothing: say so here, before
  // a page, tRPC or a route handler tries to decode it and fails with a 500.
  if (!isDecodable(input.pathname)) {
    return { ok: false, status: 400, message: "The address is not valid: it has a malformed %-escape." };
  }
  if (SAFE_METHODS.has(input.method.toUpperCase()) || isOriginExempt(input.pathname)) return { ok: true };

  const refused: TGuardVerdict = { ok: false, status: 403, message: "Cross-site request refused." };
  const rawOrigin = input.headers.get("origin");
  if (rawOrigin !== null) {
    const origin = originOf(rawOrigin);
    return origin && host && isSameOrigin(origin, host, policy) ? { ok: true } : refused;
  }
  const site = input.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return refused;
  const referer = originOf(input.headers.get("referer"));
  if (referer) return host && isSameOrigin(referer, host, policy) ? { ok: true } : refused;
  return input.headers.has("cookie") ? refused : { ok: true };
}

import { NextRequest } from "next/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { proxy } from "../../proxy";
import { guardRequest, isAllowedHost, requestPolicyFromEnv } from "../../server/auth/request-guard";
import { resetEnvForTests } from "../../server/env";

const local = requestPolicyFromEnv({ APP_URL: undefined, ALLOWED_HOSTS: [] });
const headers = (h: Record<string, string>) => new Headers(h);

describe("allowed hosts", () => {
  it("answers localhost, 127.0.0.1 and [::1] on any port by default, and nothing else", () => {
    for (const host of ["localhost:3000", "LOCALHOST", "127.0.0.1:3100", "[::1]:3000"]) {
      expect(isAllowedHost(host, local), host).toBe(true);
    }
    for (const host of [
      "evil.example",
      "evil.example:3000",
      "127.0.0.1.evil.example",
      "192.168.1.5:3000",
      "",
      "[::1]x",
    ]) {
      expect(isAllowedHost(host, local), host).toBe(false);
    }
    expect(isAllowedHost(null, local)).toBe(false);
  });

  it("adds APP_URL's host (with its port) and ALLOWED_HOSTS entries", () => {
    const policy = requestPolicyFromEnv({
      APP_URL: "https://bellwether.example.com",
      ALLOWED_HOSTS: ["nas.lan:3000", "10.0.0.5"],
    });
    expect(isAllowedHost("bellwether.example.com", policy)).toBe(true);
    expect(isAllowedHost("other.example.com", policy)).toBe(false);
    expect(isAllowedHost("nas.lan:3000", policy)).toBe(true);
    expect(isAllowedHost("nas.lan:4000", policy)).toBe(false);
    expect(isAllowedHost("10.0.0.5:3000", policy)).toBe(true);
    expect(policy.appOrigin).toBe("https://bellwether.example.com");
  });
});

describe("guardRequest", () => {
  const post = (pathname: string, h: Record<string, string>) =>
    guardRequest({ method: "POST", pathname, headers: headers({ host: "127.0.0.1:3000", ...h }) }, local);

  it("refuses a foreign Host (DNS rebinding) with 421, except on /api/health", () => {
    const rebound = guardRequest(
      { method: "GET", pathname: "/", headers: headers({ host: "attacker.example" }) },
      local,
    );
    expect(rebound).toMatchObject({ ok: false, status: 421 });
    const health = guardRequest(
      { method: "GET", pathname: "/api/health", headers: headers({ host: "10.1.2.3" }) },
      local,
    );
    expect(health.ok).toBe(true);
  });

  it("accepts same-origin state changes and refuses other origins with 403", () => {
    expect(post("/api/trpc/tracker.create", { origin: "http://127.0.0.1:3000", cookie: "x=1" }).ok).toBe(true);
    for (const origin of ["http://evil.example", "http://127.0.0.1:4000", "null", "not a url"]) {
      expect(post("/api/trpc/tracker.create", { origin, cookie: "x=1" }), origin).toMatchObject({ status: 403 });
    }
    expect(post("/api/auth/sign-in/email", { origin: "http://evil.example" })).toMatchObject({ status: 403 });
    expect(post("/api/setup/abc", { origin: "http://evil.example" })).toMatchObject({ status: 403 });
  });

  it("without Origin: trusts a same-origin Referer, refuses cross-site fetch metadata and bare cookie requests", () => {
    expect(post("/api/trpc/x", { referer: "http://127.0.0.1:3000/settings", cookie: "x=1" }).ok).toBe(true);
    expect(post("/api/trpc/x", { referer: "http://evil.example/page", cookie: "x=1" })).toMatchObject({ status: 403 });
    expect(post("/api/trpc/x", { "sec-fetch-site": "cross-site" })).toMatchObject({ status: 403 });
    expect(post("/api/trpc/x", { cookie: "x=1" })).toMatchObject({ status: 403 });
    // A script with no cookie has no session to abuse (it will get 401 from the procedure).
    expect(post("/api/trpc/x", {}).ok).toBe(true);
  });

  it("leaves token and secret APIs and safe methods alone", () => {
    expect(post("/api/v1/trackers", { origin: "http://evil.example" }).ok).toBe(true);
    expect(post("/api/cron/refresh", { origin: "http://evil.example" }).ok).toBe(true);
    const get = guardRequest(
      {
        method: "GET",
        pathname: "/api/trpc/x",
        headers: headers({ host: "localhost:3000", origin: "http://evil.example" }),
      },
      local,
    );
    expect(get.ok).toBe(true);
  });

  it("accepts APP_URL's origin behind a proxy that rewrites Host", () => {
    const policy = requestPolicyFromEnv({ APP_URL: "https://bw.example.com", ALLOWED_HOSTS: [] });
    const verdict = guardRequest(
      {
        method: "POST",
        pathname: "/api/trpc/x",
        headers: headers({ host: "127.0.0.1:3000", origin: "https://bw.example.com" }),
      },
      policy,
    );
    expect(verdict.ok).toBe(true);
  });
});

describe("the Next proxy", () => {
  beforeEach(() => {
    for (const name of ["APP_URL", "ALLOWED_HOSTS", "DATABASE_URL"]) vi.stubEnv(name, undefined);
    resetEnvForTests();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    resetEnvForTests();
  });

  const request = (url: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
    new NextRequest(url, { method: init.method ?? "GET", headers: { host: new URL(url).host, ...init.headers } });

  it("refuses a tRPC mutation from another origin with 403, before any handler runs", async () => {
    const res = proxy(
      request("http://127.0.0.1:3000/api/trpc/apiToken.create", {
        method: "POST",
        headers: { origin: "http://evil.example", cookie: "bellwether.session_token=x.y" },
      }),
    );
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: "FORBIDDEN" } });
  });

  it("answers a malformed %-escape with 400 on pages, tRPC and the API, before anything decodes it", async () => {
    for (const path of ["/invite/%ZZ", "/api/trpc/user.me%ZZ", "/api/v1/trackers/%ZZ", "/api/v1/trackers/%ED%A0%80"]) {
      const res = proxy(request(`http://127.0.0.1:3000${path}`));
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({
        error: { code: "BAD_REQUEST", message: expect.stringMatching(/%-escape/) },
      });
    }
    // A well-formed escape is no problem.
    expect(proxy(request("http://127.0.0.1:3000/invite/a%20b")).status).not.toBe(400);
  });

  it("refuses a foreign Host header with 421 and says how to allow it", async () => {
    const res = proxy(new NextRequest("http://127.0.0.1:3000/", { headers: { host: "rebind.attacker.example:3000" } }));
    expect(res.status).toBe(421);
    expect((await res.json()).error.message).toContain("ALLOWED_HOSTS");
    vi.stubEnv("ALLOWED_HOSTS", "rebind.attacker.example");
    resetEnvForTests();
    const allowed = proxy(
      new NextRequest("http://127.0.0.1:3000/sign-in", { headers: { host: "rebind.attacker.example:3000" } }),
    );
    expect(allowed.status).toBe(200);
  });

  it("sends pages without a session cookie to /sign-in, keeping where they were going", () => {
    const res = proxy(request("http://127.0.0.1:3000/trackers/abc?x=1"));
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toMatch(/^http:\/\/[^/]+:3000\/sign-in\?next=%2Ftrackers%2Fabc%3Fx%3D1$/);
    expect(proxy(request("http://127.0.0.1:3000/sign-in")).status).toBe(200);
    expect(proxy(request("http://127.0.0.1:3000/invite/tok")).status).toBe(200);
  });

  it("gives pages a CSP with a fresh nonce, frame-ancestors 'none' and no unsafe script sources", () => {
    const cookie = { cookie: "bellwether.session_token=x.y" };
    const a =
      proxy(request("http://127.0.0.1:3000/", { headers: cookie })).headers.get("content-security-policy") ?? "";
    const b =
      proxy(request("http://127.0.0.1:3000/", { headers: cookie })).headers.get("content-security-policy") ?? "";
    expect(a).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}' 'strict-dynamic'(;|$)/);
    expect(a).toContain("frame-ancestors 'none'");
    expect(a).not.toMatch(/script-src[^;]*unsafe-(inline|eval)/);
    expect(a).not.toContain("upgrade-insecure-requests");
    expect(a).not.toBe(b);
  });
});

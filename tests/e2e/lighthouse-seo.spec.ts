import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Cookie, expect, test } from "@playwright/test";
import lighthouse from "lighthouse";
import { ACME_PRICING_DEFINITION, acmePricingPage } from "../fixtures/acme-pricing";
import { createApiToken } from "./api-token";
import { CHROMIUM_ARGS, findChromium } from "./chromium";
import { site } from "./fixtures";
import { OWNER_STATE } from "./owner";
import { E2E_URLS } from "./ports";

/**
 * Lighthouse SEO ≥ 95 (docs/testing.md): the real `lighthouse` package, SEO category only, against the sign-in page
 * signed out and the feed, the trackers list and Settings signed in (the owner's session cookie set in the browser),
 * with the app's real robots.txt. Every audit runs: `is-crawlable` reads robots.txt, the page's robots meta and
 * X-Robots-Tag; `robots-txt` validates the file. None needs the network: `hreflang` and `canonical` only check the page's own
 * `<link>`s, and `structured-data` is a manual audit (weight 0, nothing is fetched or validated). The Chromium
 * Lighthouse drives resolves no host name at all, and every request it made is checked to be the app's.
 * A self-test on a tiny local page proves the measurement fails when robots.txt disallows everything.
 */

const APP = E2E_URLS.rulesApp;
const MIN_SCORE = 0.95;

/** Signed-out and signed-in pages; each must answer 200 itself (Lighthouse would otherwise audit the sign-in redirect). */
const PAGES = [
  { name: "sign-in (signed out)", path: "/sign-in", signedIn: false },
  { name: "feed", path: "/", signedIn: true },
  { name: "trackers list", path: "/trackers", signedIn: true },
  { name: "settings", path: "/settings", signedIn: true },
] as const;

type TSeoRun = {
  score: number | null;
  failing: string[];
  finalUrl: string;
  /** Every URL the page requested, from Lighthouse's DevTools log. */
  requested: string[];
  /** The robots.txt Lighthouse fetched: its HTTP status, and whether `robots-txt` judged it (a 404 is "not applicable"). */
  robotsTxt: { status: number | null; audited: boolean };
  runtimeError?: string;
};

/**
 * A headless Chromium with a DevTools port for Lighthouse, on a throw-away profile. Every host name fails to resolve,
 * so nothing but the IP-literal 127.0.0.1 can be reached.
 */
async function launchChromium(): Promise<{ port: number; browserWs: string; stop: () => Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), "bellwether-lighthouse-"));
  const child: ChildProcess = spawn(
    findChromium(),
    [
      ...CHROMIUM_ARGS,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      // IP literals go through the rules too, hence the exclusion (without it the app is an error page).
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const browserWs = await new Promise<string>((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not open its DevTools port:\n${err}`)), 30_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      const m = err.match(/DevTools listening on (ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[\w-]+)/);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}) before opening its DevTools port:\n${err}`));
    });
  });
  return {
    port: Number(new URL(browserWs).port),
    browserWs,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      // Its helper processes may still be writing the cache as the browser exits (ENOTEMPTY): retried, as rm -rf would be.
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/** Sends one DevTools command to the browser itself (not a page) over its WebSocket, and closes it. */
async function browserCommand(browserWs: string, method: string, params: object = {}): Promise<unknown> {
  const ws = new WebSocket(browserWs);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`cannot reach Chromium's DevTools at ${browserWs}`));
  });
  try {
    return await new Promise((resolve, reject) => {
      ws.onmessage = (event) => {
        const msg = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
        if (msg.id !== 1) return;
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
        else resolve(msg.result);
      };
      ws.send(JSON.stringify({ id: 1, method, params }));
    });
  } finally {
    ws.close();
  }
}

/**
 * The Lighthouse browser's cookies become exactly `cookies`. The session is a real cookie there, as in a signed-in
 * browser, rather than Lighthouse's `extraHeaders: { Cookie }`: Chromium replaces that header with its own cookies as
 * soon as the app has set any (GoogleChrome/lighthouse#6207), and the pages do set some, so the next page audited
 * was the redirect to sign-in. Lighthouse's own storage reset leaves cookies alone, hence the clearing.
 */
async function setBrowserCookies(browserWs: string, cookies: Cookie[]): Promise<void> {
  await browserCommand(browserWs, "Storage.clearCookies");
  if (cookies.length === 0) return;
  await browserCommand(browserWs, "Storage.setCookies", {
    cookies: cookies.map((c) => ({
      name: c.name,
      value: c.value,
      url: APP,
      path: c.path,
      httpOnly: c.httpOnly,
      secure: c.secure,
      sameSite: c.sameSite,
      ...(c.expires > 0 ? { expires: c.expires } : {}),
    })),
  });
}

/** One Lighthouse SEO run; `failing` lists every scored audit below 1 as "id: title (what it found)". */
async function seo(port: number, url: string): Promise<TSeoRun> {
  const result = await lighthouse(url, {
    port,
    hostname: "127.0.0.1",
    onlyCategories: ["seo"],
    logLevel: "error",
    output: "json",
  });
  if (!result) throw new Error(`Lighthouse returned no result for ${url}`);
  const { lhr, artifacts } = result;
  const category = lhr.categories.seo;
  const failing = (category?.auditRefs ?? [])
    .filter((ref) => ref.weight > 0)
    .map((ref) => lhr.audits[ref.id])
    .filter((audit) => audit && audit.score !== null && audit.score < 1)
    .map((audit) => {
      const items: unknown[] = audit?.details && "items" in audit.details ? audit.details.items : [];
      const found = items
        .slice(0, 5)
        .map((item) => JSON.stringify(item).slice(0, 200))
        .join("; ");
      return `${audit?.id}: ${audit?.title}${found ? ` (${found})` : ""}`;
    });
  const requested = (artifacts.DevtoolsLog ?? [])
    .filter((entry) => entry.method === "Network.requestWillBeSent")
    .map((entry) => (entry.params as { request: { url: string } }).request.url);
  return {
    score: category?.score ?? null,
    failing,
    finalUrl: lhr.finalDisplayedUrl,
    requested,
    robotsTxt: {
      status: artifacts.RobotsTxt?.status ?? null,
      audited: lhr.audits["robots-txt"]?.scoreDisplayMode === "binary",
    },
    runtimeError: lhr.runtimeError?.message,
  };
}

/** Requests other than to `origin` (page-internal data:, blob: and about: URLs are not requests to anywhere). */
const foreignRequests = (run: TSeoRun, origin: string) =>
  run.requested.filter((u) => !/^(data|blob|about|chrome):/.test(u) && new URL(u).origin !== origin);

const report = (run: TSeoRun) =>
  `SEO score ${run.score}; failing audits:\n  ${run.failing.join("\n  ") || "(none)"}` +
  (run.runtimeError ? `\nruntime error: ${run.runtimeError}` : "");

let chromium: Awaited<ReturnType<typeof launchChromium>>;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  chromium = await launchChromium();

  // Content, so the feed has a card and the trackers list a row with their links: one tracker with a material change.
  const context = await browser.newContext({
    baseURL: APP,
    storageState: OWNER_STATE.rulesApp,
    extraHTTPHeaders: { origin: APP },
  });
  const { request } = await context.newPage();
  const headers = { authorization: `Bearer ${await createApiToken(request, "e2e lighthouse seo")}` };
  const tag = Date.now();
  const sitePath = `/e2e-lighthouse-seo-${tag}`;
  await site.setPage(sitePath, { body: acmePricingPage("$100.00", "4.0") });
  const created = await request.post("/api/v1/trackers", {
    headers,
    data: {
      decision: `Is Acme undercutting our Pro plan? (seo ${tag})`,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(sitePath) },
      definition: ACME_PRICING_DEFINITION,
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  const refresh = async () =>
    (await (await request.post(`/api/v1/trackers/${id}/refresh`, { headers })).json()).run.outcome as string;
  expect(await refresh()).toBe("baseline");
  await site.setPage(sitePath, { body: acmePricingPage("$80.00", "4.0") });
  expect(await refresh()).toBe("material");
  await context.close();
});

test.afterAll(async () => {
  await chromium?.stop();
});

for (const page of PAGES) {
  test(`Lighthouse SEO ≥ ${MIN_SCORE * 100}: ${page.name}`, async ({ context, playwright }) => {
    // Lighthouse takes 20–60 s a page on a busy 2-core machine.
    test.setTimeout(240_000);
    const url = `${APP}${page.path}`;
    const cookies = page.signedIn ? await context.cookies(APP) : [];
    if (page.signedIn) expect(cookies.length, "the owner's session cookie from owner.setup.ts").toBeGreaterThan(0);
    // The page answers 200 itself with exactly these cookies (a context of its own, not the project's storageState).
    const direct = await playwright.request.newContext({ storageState: { cookies, origins: [] } });
    const res = await direct.get(url, { maxRedirects: 0 });
    expect(res.status(), `${page.path} answers ${res.status()} ${res.headers().location ?? ""}`).toBe(200);
    await direct.dispose();

    await setBrowserCookies(chromium.browserWs, cookies);
    const run = await seo(chromium.port, url);
    test.info().annotations.push({ type: "Lighthouse SEO", description: `${page.path}: ${run.score}` });
    console.log(`Lighthouse SEO ${page.path}: ${run.score}`);
    expect(run.runtimeError, report(run)).toBeUndefined();
    // Not redirected (to sign-in, had the session not been sent): the page itself was audited.
    expect(run.finalUrl, report(run)).toBe(url);
    expect(foreignRequests(run, APP), "requests outside the app").toEqual([]);
    // The app's real robots.txt was read and judged (a missing one would make `robots-txt` "not applicable").
    expect(run.robotsTxt, report(run)).toEqual({ status: 200, audited: true });
    expect(run.score ?? 0, `${page.path}: ${report(run)}`).toBeGreaterThanOrEqual(MIN_SCORE);
  });
}

/**
 * The measurement can fail: a clean page scores ≥ 0.95, and the same page behind a robots.txt that disallows everything
 * fails `is-crawlable` and the threshold. Served from this process on 127.0.0.1, so it runs without the app.
 */
test("self-test: a robots.txt that disallows everything fails the SEO threshold", async () => {
  test.setTimeout(240_000);
  let robots = "User-agent: *\nAllow: /\n";
  const server: Server = createServer((req, res) => {
    if (req.url === "/robots.txt") {
      res.writeHead(200, { "content-type": "text/plain" }).end(robots);
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Self-test</title><meta name="description" content="A page for the Lighthouse SEO self-test."></head>
<body><main><h1>Self-test</h1><p>Nothing else here.</p></main></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await setBrowserCookies(chromium.browserWs, []);
  try {
    const clean = await seo(chromium.port, `${origin}/`);
    expect(clean.score ?? 0, report(clean)).toBeGreaterThanOrEqual(MIN_SCORE);
    expect(foreignRequests(clean, origin)).toEqual([]);

    robots = "User-agent: *\nDisallow: /\n";
    const blocked = await seo(chromium.port, `${origin}/`);
    expect(blocked.score ?? 1, report(blocked)).toBeLessThan(MIN_SCORE);
    expect(blocked.failing.map((f) => f.split(":")[0])).toContain("is-crawlable");
    expect(blocked.robotsTxt).toEqual({ status: 200, audited: true });
  } finally {
    // Chromium keeps its connections alive; close() alone would wait for them.
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  closeBrowsers,
  executeCapability,
  pooledBrowserPid,
  type TCapabilityConfig,
  type TCapabilityEnvelope,
  type TCssQuery,
  type TWebScrapeOutput,
} from "@/server/capabilities";
import { jsPricePage } from "../fixtures/site/js-pages";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { localCapabilityConfig, testBrowserConfig } from "../helpers/trackers";

/**
 * web.scrape `render` (docs/page-reading.md, "Pages that need a browser") with the real system Chromium and the local fixture site, no network:
 * render modes, the browser's request guards, and a browser killed mid-render.
 */

const browser = testBrowserConfig();
const PRICE: TCssQuery = { selector: "#price", all: false };

let site: TFixtureSite;
/** A second local server on another loopback port that nothing allows: the browser must never reach it. */
let forbidden: TFixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
  forbidden = await startFixtureSite();
});
afterAll(async () => {
  await closeBrowsers();
  await site?.close();
  await forbidden?.close();
});
beforeEach(() => {
  site.reset();
  forbidden.reset();
  forbidden.setPage("/secret", { body: "<p>secret</p>", contentType: "text/html" });
});

function config(overrides: Partial<NonNullable<TCapabilityConfig["fetch"]["browser"]>> = {}): TCapabilityConfig {
  const cfg = localCapabilityConfig([site.url], { timeoutMs: 5_000, maxBytes: 500_000 });
  if (browser) cfg.fetch.browser = { ...browser, ...overrides };
  return cfg;
}

async function scrape(input: Record<string, unknown>, cfg = config()) {
  return (await executeCapability("web.scrape", input, {
    config: cfg,
    cssQueries: [PRICE],
  })) as TCapabilityEnvelope<TWebScrapeOutput>;
}

const priceOf = (out: TWebScrapeOutput | undefined) => {
  const answer = out?.css?.["one||#price"];
  return answer?.ok ? answer.values[0] : null;
};

describe.skipIf(!browser)("web.scrape render (system Chromium)", () => {
  it("never sees no price in a JavaScript shell; auto and always extract it; auto says why it rendered", async () => {
    site.setPage("/app", jsPricePage({ price: "$49.00" }));
    const url = site.urlFor("/app");

    const never = await scrape({ url, render: "never" });
    expect(never.status).toBe("completed");
    expect(never.results?.render).toEqual({ rendered: false });
    expect(priceOf(never.results)).toBeNull();
    expect(never.results?.document.prices).toEqual([]);

    const always = await scrape({ url, render: "always" });
    expect(always.error).toBeUndefined();
    expect(always.results?.render?.rendered).toBe(true);
    expect(priceOf(always.results)).toBe("$49.00");
    expect(always.results?.document.mainText).toContain("Pro plan $49.00 per month");

    const auto = await scrape({ url });
    expect(auto.error).toBeUndefined();
    expect(auto.results?.render).toMatchObject({ rendered: true, autoRender: true });
    expect(auto.results?.render?.reason).toMatch(/app shell.*#root/);
    expect(priceOf(auto.results)).toBe("$49.00");
  });

  it("auto keeps a plain page plain: no browser, the decision is 'plain'", async () => {
    site.setPage("/plain", {
      body: `<html><head><title>Plain</title></head><body><div id="root"><h1>Pro</h1><p>Pro plan <span id="price">$19.00</span> per month, billed yearly.</p></div></body></html>`,
    });
    const out = await scrape({ url: site.urlFor("/plain") });
    expect(out.results?.render).toEqual({ rendered: false, autoRender: false });
    expect(priceOf(out.results)).toBe("$19.00");
  });

  it("a remembered shell (autoRender) renders without fetching the shell first", async () => {
    site.setPage("/app", jsPricePage({ price: "$49.00" }));
    const out = await scrape({ url: site.urlFor("/app"), autoRender: true });
    expect(priceOf(out.results)).toBe("$49.00");
    // One request for the page: the browser's (a probe fetch would make it two).
    expect(site.hits("/app")).toBe(1);
  });

  it("a sub-request to a loopback port that is not allowed is refused, and the page still renders", async () => {
    site.setPage(
      "/app",
      jsPricePage({
        price: "$49.00",
        extraScript: `fetch(${JSON.stringify(forbidden.urlFor("/secret"))}).then(function (r) { return r.text(); })
          .then(function (t) { document.title = "leaked " + t; }, function () { document.body.setAttribute("data-refused", "1"); });
          var s = document.createElement("script"); s.src = ${JSON.stringify(forbidden.urlFor("/secret.js"))}; document.head.appendChild(s);`,
      }),
    );
    const out = await scrape({ url: site.urlFor("/app"), render: "always" });
    expect(out.error).toBeUndefined();
    expect(forbidden.requests).toHaveLength(0);
    expect(out.results?.html).toContain('data-refused="1"');
    expect(out.results?.document.title).toBe("Acme Pro");
    expect(out.results?.render?.blockedRequests).toBeGreaterThanOrEqual(2);
    expect(priceOf(out.results)).toBe("$49.00");
  });

  it("a redirect hop to a forbidden port is refused too (each hop is checked)", async () => {
    site.setPage("/hop", { redirectTo: forbidden.urlFor("/secret") });
    site.setPage(
      "/app",
      jsPricePage({
        price: "$49.00",
        extraScript: `fetch("/hop").then(function (r) { return r.text(); }).then(function (t) { document.title = "leaked " + t; }, function () {});`,
      }),
    );
    const out = await scrape({ url: site.urlFor("/app"), render: "always" });
    expect(out.error).toBeUndefined();
    expect(site.hits("/hop")).toBe(1);
    expect(forbidden.requests).toHaveLength(0);
    expect(out.results?.document.title).toBe("Acme Pro");
  });

  it("a name that rebinds to loopback between the check and the connection is refused at connect time", async () => {
    // The first lookup (the route's check) answers a public address, every later one loopback: only a check on the
    // address the socket really uses catches it (the fetch's own connection path, not the browser's or Playwright's).
    const port = new URL(forbidden.url).port;
    const lookups: string[] = [];
    const cfg = config();
    cfg.fetch.resolve = async (hostname) => {
      lookups.push(hostname);
      if (hostname !== "rebind.test") throw new Error(`unexpected lookup of ${hostname}`);
      return lookups.length === 1 ? [{ address: "8.8.8.8", family: 4 }] : [{ address: "127.0.0.1", family: 4 }];
    };
    site.setPage(
      "/app",
      jsPricePage({
        price: "$49.00",
        extraScript: `fetch("http://rebind.test:${port}/secret").then(function (r) { return r.text(); })
          .then(function (t) { document.title = "leaked " + t; }, function () { document.body.setAttribute("data-refused", "1"); });`,
      }),
    );
    const out = await scrape({ url: site.urlFor("/app"), render: "always" }, cfg);
    expect(out.error).toBeUndefined();
    expect(lookups).toEqual(["rebind.test", "rebind.test"]);
    expect(forbidden.requests).toHaveLength(0);
    expect(out.results?.html).toContain('data-refused="1"');
    expect(out.results?.render?.blockedRequests).toBe(1);
    expect(priceOf(out.results)).toBe("$49.00");
  });

  it("the page itself on a forbidden address fails with BLOCKED_ADDRESS before the browser reaches it", async () => {
    const out = await scrape({ url: forbidden.urlFor("/secret"), render: "always" });
    expect(out.status).toBe("failed");
    expect(out.error?.code).toBe("BLOCKED_ADDRESS");
    expect(forbidden.requests).toHaveLength(0);
  });

  it("media and downloads are not loaded", async () => {
    site.setPage("/img.png", { body: "png", contentType: "image/png" });
    site.setPage("/file.zip", {
      body: "zip",
      contentType: "application/zip",
      headers: { "content-disposition": "attachment" },
    });
    site.setPage(
      "/app",
      jsPricePage({
        price: "$49.00",
        extraScript: `var i = new Image(); i.src = "/img.png"; document.body.appendChild(i);
          var a = document.createElement("a"); a.href = "/file.zip"; a.download = "f.zip"; document.body.appendChild(a); a.click();`,
      }),
    );
    const out = await scrape({ url: site.urlFor("/app"), render: "always" });
    expect(out.error).toBeUndefined();
    expect(site.hits("/img.png")).toBe(0);
    expect(priceOf(out.results)).toBe("$49.00");
  });

  it("a browser killed mid-render fails that call with RENDER_FAILED; the next call starts a new browser", async () => {
    const cfg = config();
    site.setPage("/warm", jsPricePage({ price: "$1.00", delayMs: 0 }));
    await scrape({ url: site.urlFor("/warm"), render: "always" }, cfg);
    // A page that keeps the browser busy: it waits on a slow sub-request.
    site.setPage("/slow-data", { body: "{}", contentType: "application/json", delayMs: 10_000 });
    site.setPage("/busy", jsPricePage({ price: "$2.00", extraScript: `fetch("/slow-data");` }));
    const pending = scrape({ url: site.urlFor("/busy"), render: "always" }, cfg);
    for (let i = 0; i < 200 && site.hits("/slow-data") === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(site.hits("/slow-data")).toBe(1);
    const pid = await pooledBrowserPid(cfg.fetch.browser as NonNullable<TCapabilityConfig["fetch"]["browser"]>);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid as number, "SIGKILL");
    const crashed = await pending;
    expect(crashed.status).toBe("failed");
    expect(crashed.error?.code).toBe("RENDER_FAILED");
    expect(crashed.error?.message).toMatch(/browser stopped while rendering/);

    site.setPage("/app", jsPricePage({ price: "$49.00" }));
    const next = await scrape({ url: site.urlFor("/app"), render: "always" }, cfg);
    expect(next.error).toBeUndefined();
    expect(priceOf(next.results)).toBe("$49.00");
  });
});

describe("web.scrape render without a browser", () => {
  it("always fails with NOT_CONFIGURED; auto reads what a fetch sees and says why it did not render", async () => {
    site.setPage("/app", jsPricePage({ price: "$49.00" }));
    const cfg = localCapabilityConfig([site.url]);
    const always = (await executeCapability(
      "web.scrape",
      { url: site.urlFor("/app"), render: "always" },
      { config: cfg },
    )) as TCapabilityEnvelope<TWebScrapeOutput>;
    expect(always.error?.code).toBe("NOT_CONFIGURED");
    expect(always.error?.message).toMatch(/BROWSER_EXECUTABLE_PATH/);
    const auto = (await executeCapability(
      "web.scrape",
      { url: site.urlFor("/app") },
      { config: cfg },
    )) as TCapabilityEnvelope<TWebScrapeOutput>;
    expect(auto.results?.render).toEqual({
      rendered: false,
      reason: "looked like an app shell, but no browser is configured",
    });
  });
});

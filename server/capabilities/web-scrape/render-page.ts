import type { Browser, BrowserContext, Page, Request, Route } from "playwright-core";
import type { TBrowserConfig, TFetchConfig } from "../config";
import { CapabilityFailure } from "../envelope";
import { checkBrowserRequest } from "./browser-request-guard";
import { httpError, tooLarge } from "./fetch-errors";
import { guardedExchange, type TFetchStats } from "./safe-fetch";

/**
 * Renders a page in a real browser for web.scrape `render` (docs/page-reading.md, "Pages that need a browser"), under the fetch's guards:
 * - every request the browser makes — the page, sub-requests, each redirect hop — passes through
 *   checkBrowserRequest (SSRF rules, FETCH_ALLOW_HOSTS, media and trackers refused) and is then fetched by
 *   Playwright with redirects NOT followed, so the browser follows each hop itself and the next hop is checked
 *   again; WebSockets, service workers and downloads are refused outright;
 * - the bytes of all responses count against FETCH_MAX_BYTES, and one timer bounds the whole render;
 * - wait conditions: the definition's first CSS extractor selector (when there is one), then network idle,
 *   each capped inside the page's time budget; a page that never settles is read as it is at the cap.
 * A small process-wide pool: at most `concurrency` pages at once, the browser restarted after
 * `restartAfterPages` pages and whenever it crashes or disconnects (the page being rendered then fails with
 * RENDER_FAILED and the next render starts a fresh browser).
 *
 * The browser never touches the network itself: each request it makes is sent by safe-fetch's connection path
 * (`guardedExchange`), so the address check also runs at connect time and DNS rebinding after the check is refused.
 */

export type TRenderResult = {
  html: string;
  finalUrl: string;
  status: number;
  contentType: string;
  /** Browser wall time for this page (queueing excluded). */
  ms: number;
  /** Requests refused by the guards (addresses, media, trackers). */
  blocked: { url: string; kind: string }[];
};

export type TGeneration = {
  browser: Promise<Browser>;
  served: number;
  active: number;
  dead: boolean;
  retired: boolean;
};

class BrowserPool {
  private current: TGeneration | null = null;
  private running = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly config: TBrowserConfig) {}

  private async acquireSlot(signal?: AbortSignal): Promise<void> {
    if (this.running < this.config.concurrency) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        this.waiting = this.waiting.filter((w) => w !== go);
        reject(new CapabilityFailure("ABORTED", "Rendering was cancelled.", true));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(go);
    });
    this.running++;
  }

  private releaseSlot(): void {
    this.running--;
    this.waiting.shift()?.();
  }

  /** The live browser, (re)started when there is none, it died, or it served its N pages. */
  private generation(): TGeneration {
    const cur = this.current;
    if (cur && !cur.dead && cur.served < this.config.restartAfterPages) return cur;
    if (cur) this.retire(cur);
    const gen: TGeneration = { browser: launch(this.config), served: 0, active: 0, dead: false, retired: false };
    gen.browser.then(
      (b) =>
        b.on("disconnected", () => {
          gen.dead = true;
        }),
      () => {
        gen.dead = true;
      },
    );
    this.current = gen;
    return gen;
  }

  private retire(gen: TGeneration): void {
    gen.retired = true;
    if (this.current === gen) this.current = null;
    if (gen.active === 0) void gen.browser.then((b) => b.close()).catch(() => {});
  }

  async render(url: string, fetch: TFetchConfig, options: TRenderOptions): Promise<TRenderResult> {
    return this.use(url, options.signal, (browser, gen) => renderIn(browser, gen, url, fetch, this.config, options));
  }

  /** Runs `work` with the live browser, within the pool's slots (the screenshot of a sample uses it too). */
  async use<T>(
    url: string,
    signal: AbortSignal | undefined,
    work: (browser: Browser, gen: TGeneration) => Promise<T>,
  ): Promise<T> {
    await this.acquireSlot(signal);
    const gen = this.generation();
    gen.active++;
    gen.served++;
    try {
      let browser: Browser;
      try {
        browser = await gen.browser;
      } catch (error) {
        throw new CapabilityFailure(
          "RENDER_FAILED",
          `Could not start the browser to render ${url}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}. Check BROWSER_EXECUTABLE_PATH / BROWSER_WS_ENDPOINT.`,
          true,
        );
      }
      return await work(browser, gen);
    } finally {
      gen.active--;
      if (gen.retired && gen.active === 0) void gen.browser.then((b) => b.close()).catch(() => {});
      this.releaseSlot();
    }
  }

  /** Test seam: the browser process id (via CDP), so a test can kill it mid-render. */
  async browserPid(): Promise<number | undefined> {
    const cur = this.current;
    if (!cur || cur.dead) return undefined;
    const browser = await cur.browser;
    const cdp = await browser.newBrowserCDPSession();
    const info = (await cdp.send("SystemInfo.getProcessInfo")) as { processInfo: { type: string; id: number }[] };
    await cdp.detach().catch(() => {});
    return info.processInfo.find((p) => p.type === "browser")?.id;
  }

  async close(): Promise<void> {
    const cur = this.current;
    this.current = null;
    if (cur) await cur.browser.then((b) => b.close()).catch(() => {});
  }
}

/** Headless in a container (often as root, no GPU) and quiet on the network (no updates, sync, QUIC). */
const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

async function launch(config: TBrowserConfig): Promise<Browser> {
  // Loaded only when a page needs a browser: plain pages never pay for playwright-core.
  const { chromium } = await import("playwright-core");
  if (config.wsEndpoint) return chromium.connectOverCDP(config.wsEndpoint, { timeout: config.pageTimeoutMs });
  return chromium.launch({
    executablePath: config.executablePath,
    headless: true,
    args: LAUNCH_ARGS,
    timeout: config.pageTimeoutMs,
  });
}

export type TRenderOptions = {
  signal?: AbortSignal;
  stats: TFetchStats;
  /** CSS selector to wait for (the definition's first CSS extractor). */
  waitForSelector?: string;
};

async function renderIn(
  browser: Browser,
  gen: TGeneration,
  url: string,
  fetch: TFetchConfig,
  config: TBrowserConfig,
  options: TRenderOptions,
): Promise<TRenderResult> {
  const started = performance.now();
  const deadline = started + config.pageTimeoutMs;
  const remaining = () => Math.max(1, Math.round(deadline - performance.now()));
  const blocked: TRenderResult["blocked"] = [];
  let stop: CapabilityFailure | null = null;
  let mainBlocked: CapabilityFailure | null = null;
  let context: BrowserContext | null = null;
  const stopWith = (failure: CapabilityFailure) => {
    stop ??= failure;
    void context?.close().catch(() => {});
  };
  const timer = setTimeout(
    () =>
      stopWith(
        new CapabilityFailure(
          "TIMEOUT",
          `Timed out after ${Math.round(config.pageTimeoutMs / 100) / 10} s rendering ${url} in the browser. It will be retried.`,
          true,
        ),
      ),
    config.pageTimeoutMs,
  );
  const onAbort = () => stopWith(new CapabilityFailure("ABORTED", "Rendering was cancelled.", true));
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const crashed = () =>
    new CapabilityFailure(
      "RENDER_FAILED",
      `The browser stopped while rendering ${url} (it crashed or was disconnected). Nothing was recorded; the next run starts a new browser.`,
      true,
    );
  try {
    context = await browser.newContext({
      acceptDownloads: false,
      serviceWorkers: "block",
      userAgent: fetch.userAgent,
      locale: "en-US",
    });
    await context.routeWebSocket(/.*/, (ws) => ws.close({ code: 1008, reason: "WebSockets are not allowed" }));
    let mainPage: Page | null = null;
    await guardRequests(context, fetch, {
      stats: options.stats,
      remaining,
      isMain: (request) => request.isNavigationRequest() && request.frame() === mainPage?.mainFrame(),
      onBlocked: (entry, mainFailure) => {
        blocked.push(entry);
        if (mainFailure) mainBlocked ??= mainFailure;
      },
      onTooLarge: () => stopWith(tooLarge(url, fetch.maxBytes)),
    });
    const page = await context.newPage();
    mainPage = page;
    page.on("download", (d) => void d.cancel().catch(() => {}));
    const response = await page.goto(url, { waitUntil: "domcontentloaded", timeout: remaining() });
    if (mainBlocked) throw mainBlocked;
    if (!response) throw new CapabilityFailure("INVALID_RESPONSE", `${url} did not load in the browser.`, true);
    const status = response.status();
    if (status >= 400) throw httpError(status, response.statusText(), page.url(), response.headers()["retry-after"]);
    const contentType = (response.headers()["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    if (contentType && contentType !== "text/html" && contentType !== "application/xhtml+xml") {
      throw new CapabilityFailure(
        "UNSUPPORTED_CONTENT_TYPE",
        `${url} is not a web page (${contentType}); only HTML pages are rendered. Use render: "never" for it.`,
        false,
        { contentType },
      );
    }
    if (options.waitForSelector) {
      await page
        .waitForSelector(options.waitForSelector, {
          state: "attached",
          timeout: Math.min(remaining(), config.pageTimeoutMs / 2),
        })
        .catch(() => {});
    }
    await page
      .waitForLoadState("networkidle", { timeout: Math.min(remaining(), config.networkIdleCapMs) })
      .catch(() => {});
    const html = await page.content();
    if (html.length > fetch.maxBytes) throw tooLarge(url, fetch.maxBytes, html.length);
    options.stats.httpStatus = status;
    return {
      html,
      finalUrl: page.url(),
      status,
      contentType: contentType || "text/html",
      ms: Math.round(performance.now() - started),
      blocked,
    };
  } catch (error) {
    if (stop) throw stop;
    if (mainBlocked) throw mainBlocked;
    if (gen.dead || !browser.isConnected()) throw crashed();
    if (error instanceof CapabilityFailure) throw error;
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    if (/crash|Target (page, context or browser )?(has been )?closed|browser has been closed/i.test(message ?? ""))
      throw crashed();
    throw new CapabilityFailure("RENDER_FAILED", `Rendering ${url} failed in the browser: ${message}`, true);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    await context?.close().catch(() => {});
  }
}

/**
 * Every request a browser context makes goes through the fetch's guards (docs/page-reading.md): refused by
 * checkBrowserRequest (addresses, media, trackers), else sent by safe-fetch's own connection path and counted
 * against the byte budget.
 */
export async function guardRequests(
  context: BrowserContext,
  fetch: TFetchConfig,
  opts: {
    stats: TFetchStats;
    remaining: () => number;
    isMain: (request: Request) => boolean;
    /** A refused request; `mainFailure` when it was the page itself. */
    onBlocked: (entry: { url: string; kind: string }, mainFailure: CapabilityFailure | null) => void;
    onTooLarge: () => void;
  },
): Promise<void> {
  await context.route("**/*", async (route: Route) => {
    const request = route.request();
    const isMain = opts.isMain(request);
    const verdict = await checkBrowserRequest(request.url(), request.resourceType(), fetch);
    if (!verdict.allow) {
      const failure = isMain ? (verdict.failure ?? new CapabilityFailure("BLOCKED_ADDRESS", verdict.reason)) : null;
      opts.onBlocked({ url: request.url().slice(0, 300), kind: verdict.kind }, failure);
      await route.abort("blockedbyclient").catch(() => {});
      return;
    }
    try {
      // Sent by the fetch's own connection path, not the browser's or Playwright's: the address checks above run
      // again at connect time on the addresses actually used (DNS rebinding between check and connect is refused).
      const body = request.postDataBuffer();
      const exchange = await guardedExchange(request.url(), fetch, {
        method: request.method(),
        headers: await request.allHeaders(),
        ...(body ? { body } : {}),
        signal: AbortSignal.timeout(Math.max(1, opts.remaining())),
        stats: opts.stats,
      });
      if (opts.stats.bytes > fetch.maxBytes) {
        opts.onTooLarge();
        await route.abort("failed").catch(() => {});
        return;
      }
      await route.fulfill({ status: exchange.status, headers: exchange.headers, body: exchange.body });
    } catch (error) {
      if (error instanceof CapabilityFailure && error.code === "BLOCKED_ADDRESS")
        opts.onBlocked({ url: request.url().slice(0, 300), kind: "address" }, isMain ? error : null);
      await route.abort("failed").catch(() => {});
    }
  });
}

const pools = new Map<string, BrowserPool>();

export function poolFor(config: TBrowserConfig): BrowserPool {
  const key = JSON.stringify([config.executablePath, config.wsEndpoint, config.concurrency, config.restartAfterPages]);
  let pool = pools.get(key);
  if (!pool) {
    pool = new BrowserPool(config);
    pools.set(key, pool);
  }
  return pool;
}

/** Renders `url` with the configured browser; throws CapabilityFailure for every expected failure. */
export function renderPage(url: string, fetch: TFetchConfig, options: TRenderOptions): Promise<TRenderResult> {
  const config = fetch.browser;
  if (!config) {
    return Promise.reject(
      new CapabilityFailure(
        "NOT_CONFIGURED",
        `${url} needs a browser to render, and none is configured. Set BROWSER_EXECUTABLE_PATH (e.g. /usr/bin/chromium) or BROWSER_WS_ENDPOINT, or use render: "never".`,
      ),
    );
  }
  // The page's own address is checked before a browser is involved (the route check repeats it per hop).
  return checkBrowserRequest(url, "document", fetch).then((verdict) => {
    if (!verdict.allow)
      throw (
        verdict.failure ?? new CapabilityFailure("BLOCKED_ADDRESS", `Refusing to render ${url}: ${verdict.reason}.`)
      );
    return poolFor(config).render(url, fetch, options);
  });
}

/** Test seam: the pid of the pooled browser for this config (undefined before its first page). */
export function pooledBrowserPid(config: TBrowserConfig): Promise<number | undefined> {
  return poolFor(config).browserPid();
}

/** Shutdown and tests: closes every pooled browser. */
export async function closeBrowsers(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}

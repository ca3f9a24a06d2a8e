import { getEnv, type TEnv } from "../env";
import { DEFAULT_PAGE_LIMITS, type TPageLimits } from "./web-scrape/page-limits";

/**
 * Everything a capability needs from the outside world, passed explicitly so tests (and the
 * benchmark) can run several configurations side by side without touching process.env.
 */
export type TFetchConfig = {
  /** host or host:port entries (lowercase) that may resolve to private/loopback addresses. */
  allowHosts: readonly string[];
  /** Whole fetch, all redirect hops and the body included. */
  timeoutMs: number;
  /** Until the response headers of each hop arrive. */
  headersTimeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  /** Cap on the raw HTML returned with the result (characters). */
  htmlMaxChars: number;
  /** Page reading off the event loop (page-worker-pool.ts): time budget per page, worker heap cap, pool size. */
  page: TPageLimits;
  /** Rendering pages in a browser (web.scrape `render`); undefined = no browser configured. */
  browser?: TBrowserConfig;
  /**
   * DNS resolution, injectable so tests can simulate a hostname that resolves to a private
   * address (DNS rebinding) without a real resolver. Defaults to `dns.lookup(host, {all: true})`.
   */
  resolve?: (hostname: string) => Promise<readonly { address: string; family: number }[]>;
};

export type TBrowserConfig = {
  /** Exactly one of the two: a local executable to launch, or a CDP endpoint to connect to. */
  executablePath?: string;
  wsEndpoint?: string;
  /** Pages rendered at once (process-wide per browser). */
  concurrency: number;
  /** Whole render of one page: navigation, wait conditions and reading the DOM. */
  pageTimeoutMs: number;
  /** The browser is restarted after this many pages (and on crash/disconnect). */
  restartAfterPages: number;
  /** Longest wait for network idle once the page loaded (a page that polls never goes idle). */
  networkIdleCapMs: number;
};

export type TMapsConfig = {
  apiKey: string | undefined;
  /** Google Places API (New) origin, e.g. https://places.googleapis.com — a local fake in tests. */
  baseUrl: string;
  timeoutMs: number;
};

export type TCapabilityConfig = { fetch: TFetchConfig; maps: TMapsConfig };

export const DEFAULT_USER_AGENT = "BellwetherBot/0.1 (+https://github.com/bellwether-app/bellwether)";

export function capabilityConfigFromEnv(env: TEnv = getEnv()): TCapabilityConfig {
  return {
    fetch: {
      allowHosts: env.FETCH_ALLOW_HOSTS,
      timeoutMs: env.FETCH_TIMEOUT_MS,
      headersTimeoutMs: Math.min(env.FETCH_TIMEOUT_MS, 10_000),
      maxBytes: env.FETCH_MAX_BYTES,
      maxRedirects: env.FETCH_MAX_REDIRECTS,
      userAgent: DEFAULT_USER_AGENT,
      htmlMaxChars: 1_000_000,
      page: {
        timeoutMs: env.PAGE_TIMEOUT_MS,
        memoryMb: env.PAGE_MEMORY_MB,
        workers: env.PAGE_WORKERS ?? DEFAULT_PAGE_LIMITS.workers,
      },
      ...browserConfigFromEnv(env),
    },
    maps: {
      apiKey: env.GOOGLE_MAPS_API_KEY,
      baseUrl: env.GOOGLE_PLACES_BASE_URL ?? "https://places.googleapis.com",
      timeoutMs: env.FETCH_TIMEOUT_MS,
    },
  };
}

function browserConfigFromEnv(env: TEnv): { browser?: TBrowserConfig } {
  const target = env.BROWSER_WS_ENDPOINT
    ? { wsEndpoint: env.BROWSER_WS_ENDPOINT }
    : env.BROWSER_EXECUTABLE_PATH
      ? { executablePath: env.BROWSER_EXECUTABLE_PATH }
      : undefined;
  if (!target) return {};
  return {
    browser: {
      ...target,
      concurrency: env.BROWSER_CONCURRENCY,
      pageTimeoutMs: env.BROWSER_PAGE_TIMEOUT_MS,
      restartAfterPages: env.BROWSER_RESTART_AFTER_PAGES,
      networkIdleCapMs: DEFAULT_NETWORK_IDLE_CAP_MS,
    },
  };
}

export const DEFAULT_NETWORK_IDLE_CAP_MS = 3_000;

/** Test/bench helper: the env defaults with selected overrides. */
export function makeCapabilityConfig(
  overrides: { fetch?: Partial<TFetchConfig>; maps?: Partial<TMapsConfig> } = {},
): TCapabilityConfig {
  const base: TCapabilityConfig = {
    fetch: {
      allowHosts: [],
      timeoutMs: 15_000,
      headersTimeoutMs: 10_000,
      maxBytes: 5_000_000,
      maxRedirects: 5,
      userAgent: DEFAULT_USER_AGENT,
      htmlMaxChars: 1_000_000,
      page: DEFAULT_PAGE_LIMITS,
    },
    maps: { apiKey: undefined, baseUrl: "https://places.googleapis.com", timeoutMs: 15_000 },
  };
  return { fetch: { ...base.fetch, ...overrides.fetch }, maps: { ...base.maps, ...overrides.maps } };
}

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
  /**
   * DNS resolution, injectable so tests can simulate a hostname that resolves to a private
   * address (DNS rebinding) without a real resolver. Defaults to `dns.lookup(host, {all: true})`.
   */
  resolve?: (hostname: string) => Promise<readonly { address: string; family: number }[]>;
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
    },
    maps: {
      apiKey: env.GOOGLE_MAPS_API_KEY,
      baseUrl: env.GOOGLE_PLACES_BASE_URL ?? "https://places.googleapis.com",
      timeoutMs: env.FETCH_TIMEOUT_MS,
    },
  };
}

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

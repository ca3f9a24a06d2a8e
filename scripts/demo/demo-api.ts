/** What the demo needs of `fetch` (a test passes the app's REST handler instead). */
export type TFetch = (url: string, init: RequestInit) => Promise<Response>;

export type TDemoApi = (method: string, pathname: string, body?: unknown) => Promise<Record<string, unknown>>;

/** When a 429 carries no usable Retry-After. */
const FALLBACK_WAIT_MS = 5_000;

/**
 * How long a 429 asks the client to wait: Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3); the app
 * sends seconds (docs/configuration.md, RATE_LIMIT_REFRESHES: "over it → 429 + Retry-After").
 */
export function retryAfterMs(header: string | null, nowMs = Date.now()): number {
  const value = header?.trim() ?? "";
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  return FALLBACK_WAIT_MS;
}

/**
 * The demo's client for the public API (/api/v1, Bearer token). A refused call (429) did no work, so it waits as
 * long as Retry-After says and asks again, rather than failing the tick; after `maxWaits` refusals in a row it
 * throws, like any other HTTP error.
 */
export function createDemoApi(input: {
  appUrl: string;
  token: string;
  fetch?: TFetch;
  sleep?: (ms: number) => Promise<void>;
  /** Told before each wait, so the console says why the demo pauses. */
  onWait?: (ms: number, request: string) => void;
  maxWaits?: number;
}): TDemoApi {
  const fetchFn = input.fetch ?? ((url, init) => fetch(url, init));
  const sleep = input.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxWaits = input.maxWaits ?? 5;
  return async (method, pathname, body) => {
    const request = `${method} ${pathname}`;
    for (let waits = 0; ; waits++) {
      const res = await fetchFn(`${input.appUrl}/api/v1${pathname}`, {
        method,
        headers: { authorization: `Bearer ${input.token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (res.status === 429 && waits < maxWaits) {
        await res.body?.cancel();
        const ms = retryAfterMs(res.headers.get("retry-after"));
        input.onWait?.(ms, request);
        await sleep(ms);
        continue;
      }
      const json = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`${request}: HTTP ${res.status} ${JSON.stringify(json)}`);
      return json;
    }
  };
}

import { lookup as dnsLookup } from "node:dns/promises";
import http, { type IncomingMessage, STATUS_CODES } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { pipeline, type Readable } from "node:stream";
import type { TFetchConfig } from "../config";
import { CapabilityFailure } from "../envelope";
import { decodeBody, decompressor, parseContentType, sniffCharset } from "./decode-body";
import { describeNetworkError, httpError, tooLarge } from "./fetch-errors";
import { ADDRESS_CLASS_LABEL, classifyAddress } from "./is-public-address";

/**
 * An SSRF-safe GET. Every hop (redirects included) is checked before it connects:
 * - literal IPs are classified up front, so a blocked address never sees a packet;
 * - hostnames resolve through a custom `lookup` that validates *every* resolved address at
 *   connect time — the address that is checked is the address that is dialled, which is what
 *   defeats DNS rebinding (no separate "check, then connect" window);
 * - hosts listed in config.allowHosts (host or host:port) skip the address checks.
 * The body is streamed and cut off past maxBytes (decompressed size counts, so a gzip bomb
 * cannot inflate past the cap), and one timer bounds the whole fetch.
 */

export type TFetchStats = {
  /** HTTP requests actually sent (connect attempts that passed the address checks). */
  requests: number;
  bytes: number;
  httpStatus?: number;
};

export type TFetchResponse = {
  requestedUrl: string;
  finalUrl: string;
  status: number;
  /** Lowercase media type without parameters; "" when the server sent none. */
  contentType: string;
  charset: string;
  text: string;
  /** The body as received (decompressed), with `binary`; `text` is then empty. */
  bytes?: Buffer;
  redirects: string[];
  /** Cache validators of the final response, for a later conditional request. */
  etag: string | null;
  lastModified: string | null;
};

export type TSafeFetchOptions = {
  signal?: AbortSignal;
  stats?: TFetchStats;
  accept?: string;
  /**
   * Conditional GET: sent as If-None-Match / If-Modified-Since on every hop. A 304 answer then returns
   * `status: 304` with an empty body instead of failing.
   */
  ifNoneMatch?: string | null;
  ifModifiedSince?: string | null;
  /** Keep the body as bytes (a PDF), not decoded as text. */
  binary?: boolean;
  /** Called with the media type ("" if absent) before the body is read; return a reason to refuse. */
  checkContentType?: (mime: string) => string | undefined;
  /**
   * Sends a POST with this body and these headers instead of a GET (notification webhooks). A redirect is not
   * followed (it would drop or replay the body): it fails like an error status.
   */
  post?: { body: string; headers: Record<string, string> };
};

const ALLOW_HINT = "Allow the host with FETCH_ALLOW_HOSTS if this is intentional.";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

// Dedicated keep-alive agents (not the global ones, so no socket opened elsewhere without our
// lookup can be reused), one set per allow-list: a socket opened to an allowed host must never
// be handed to a fetch whose config does not allow that host.
const agents = new Map<string, { http: http.Agent; https: https.Agent }>();
function agentsFor(config: TFetchConfig) {
  const key = [...config.allowHosts].sort().join(",");
  let pair = agents.get(key);
  if (!pair) {
    const opts = {
      keepAlive: true,
      keepAliveMsecs: 1_000,
      maxSockets: 64,
      maxFreeSockets: 16,
      scheduling: "lifo" as const,
    };
    pair = { http: new http.Agent(opts), https: new https.Agent(opts) };
    if (agents.size > 32) agents.clear(); // tests create many configs; old agents just get collected
    agents.set(key, pair);
  }
  return pair;
}

function effectivePort(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}

/** Matches "host", "host:port", and IPv6 with or without brackets. */
export function isAllowedHost(url: URL, allowHosts: readonly string[]): boolean {
  if (allowHosts.length === 0) return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const bare = host.startsWith("[") ? host.slice(1, -1) : host;
  const port = effectivePort(url);
  for (const entry of allowHosts) {
    const e = entry.toLowerCase();
    if (e === host || e === bare || e === `${host}:${port}` || e === `${bare}:${port}`) return true;
  }
  return false;
}

function blocked(url: string, label: string, details: Record<string, unknown>, via?: string): CapabilityFailure {
  const where = via ? `${url} (redirected from ${via})` : url;
  return new CapabilityFailure("BLOCKED_ADDRESS", `Refusing to fetch ${where}: ${label}. ${ALLOW_HINT}`, false, {
    url,
    ...details,
  });
}

/** Checks that need no network: scheme, credentials, literal IPs, localhost names. */
export function precheck(url: URL, allowed: boolean, via?: string): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CapabilityFailure(
      "UNSUPPORTED_URL",
      via
        ? `The page at ${via} redirected to ${url.href}, which is not an http(s) address; only web pages can be read.`
        : `Cannot fetch ${url.href}: only http:// and https:// addresses are supported.`,
    );
  }
  if (url.username || url.password) {
    throw new CapabilityFailure(
      "UNSUPPORTED_URL",
      `Cannot fetch ${url.origin}${url.pathname}: addresses with a user name or password are not supported. Remove the credentials from the URL.`,
    );
  }
  if (allowed) return;
  const host = url.hostname.replace(/\.$/, "").toLowerCase();
  const bare = host.startsWith("[") ? host.slice(1, -1) : host;
  if (isIP(bare)) {
    const cls = classifyAddress(bare);
    if (cls !== "public") {
      throw blocked(url.href, `${ADDRESS_CLASS_LABEL[cls]} are blocked`, { address: bare, addressClass: cls }, via);
    }
    return;
  }
  if (bare === "localhost" || bare.endsWith(".localhost")) {
    throw blocked(
      url.href,
      "localhost is a loopback address, and loopback addresses are blocked",
      { address: bare, addressClass: "loopback" },
      via,
    );
  }
}

type TResolver = NonNullable<TFetchConfig["resolve"]>;
export const defaultResolve: TResolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A `lookup` for net.connect that refuses the connection if any resolved address is not public. */
function guardedLookup(resolve: TResolver, url: string, via: string | undefined): LookupFunction {
  return (hostname, options, callback) => {
    const cb = callback as (err: Error | null, address?: unknown, family?: number) => void;
    resolve(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = wanted ? found.filter((a) => a.family === wanted) : [...found];
        if (addresses.length === 0) {
          cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname }));
          return;
        }
        // Every address, not just the first: a resolver may rotate, and net may try them all.
        for (const a of addresses) {
          const cls = classifyAddress(a.address);
          if (cls !== "public") {
            const label = ADDRESS_CLASS_LABEL[cls];
            cb(
              blocked(
                url,
                `${hostname} resolves to ${a.address}, and ${label} are blocked`,
                { address: a.address, addressClass: cls },
                via,
              ),
            );
            return;
          }
        }
        const first = addresses[0] as { address: string; family: number };
        if (options.all) cb(null, addresses);
        else cb(null, first.address, first.family);
      },
      (err: unknown) => cb(err instanceof Error ? err : new Error(String(err))),
    );
  };
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`);

/** One fetch with redirects, limits and address checks. Throws CapabilityFailure for every expected failure. */
export async function safeFetch(
  rawUrl: string,
  config: TFetchConfig,
  options: TSafeFetchOptions = {},
): Promise<TFetchResponse> {
  const stats = options.stats ?? { requests: 0, bytes: 0 };
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new CapabilityFailure(
      "UNSUPPORTED_URL",
      `"${rawUrl}" is not a valid web address. Use a full URL such as https://example.com/page.`,
    );
  }

  const controller = new AbortController();
  let abortReason: "timeout" | "caller" | undefined;
  const onCallerAbort = () => {
    abortReason ??= "caller";
    controller.abort();
  };
  if (options.signal?.aborted)
    throw new CapabilityFailure("ABORTED", "The fetch was cancelled before it started.", true);
  options.signal?.addEventListener("abort", onCallerAbort, { once: true });
  const totalTimer = setTimeout(() => {
    abortReason ??= "timeout";
    controller.abort();
  }, config.timeoutMs);

  const abortFailure = () =>
    abortReason === "caller"
      ? new CapabilityFailure("ABORTED", "The fetch was cancelled.", true)
      : new CapabilityFailure(
          "TIMEOUT",
          `Timed out after ${seconds(config.timeoutMs)} fetching ${url.href}: the site did not answer in time. It will be retried.`,
          true,
        );

  const requestedUrl = url.href;
  const redirects: string[] = [];
  const visited = new Set<string>([stripHash(url)]);
  const pool = agentsFor(config);
  let via: string | undefined; // the URL that redirected to the current one

  try {
    for (;;) {
      const allowed = isAllowedHost(url, config.allowHosts);
      precheck(url, allowed, via);

      const res = await send(url, {
        allowed,
        via,
        config,
        agent: url.protocol === "https:" ? pool.https : pool.http,
        signal: controller.signal,
        accept: options.accept,
        conditional: conditionalHeaders(options),
        request: options.post ? { method: "POST", body: options.post.body, headers: options.post.headers } : undefined,
        onSent: () => {
          stats.requests++;
        },
        abortFailure,
        isAborted: () => abortReason !== undefined,
      });
      const status = res.statusCode ?? 0;
      stats.httpStatus = status;

      const location = res.headers.location;
      if (options.post && REDIRECT_STATUSES.has(status)) {
        res.resume();
        throw new CapabilityFailure(
          "INVALID_RESPONSE",
          `${url.href} answered ${status} (a redirect); use the final address.`,
        );
      }
      if (REDIRECT_STATUSES.has(status) && location) {
        res.resume(); // drain so the socket can be reused
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new CapabilityFailure(
            "INVALID_RESPONSE",
            `${url.href} redirected to an invalid address (${location.slice(0, 200)}).`,
          );
        }
        const key = stripHash(next);
        if (visited.has(key)) {
          const chain = [requestedUrl, ...redirects, next.href].join(" → ");
          throw new CapabilityFailure(
            "REDIRECT_LOOP",
            `The page redirects in a loop (${chain}). Check the address or the site's configuration.`,
            false,
            {
              chain: [requestedUrl, ...redirects, next.href],
            },
          );
        }
        if (redirects.length >= config.maxRedirects) {
          throw new CapabilityFailure(
            "TOO_MANY_REDIRECTS",
            `The page redirected more than ${config.maxRedirects} times (last: ${next.href}). Use the final address directly.`,
          );
        }
        visited.add(key);
        redirects.push(next.href);
        via = url.href;
        url = next;
        continue;
      }

      if (status >= 400) {
        res.destroy(); // don't download an error page we will not read
        throw httpError(
          status,
          res.statusMessage || STATUS_CODES[status] || "",
          url.href,
          headerValue(res.headers["retry-after"]),
        );
      }
      const validators = {
        etag: headerValue(res.headers.etag),
        lastModified: headerValue(res.headers["last-modified"]),
      };
      if (status === 304 && (options.ifNoneMatch || options.ifModifiedSince)) {
        res.resume();
        return {
          requestedUrl,
          finalUrl: url.href,
          status,
          contentType: "",
          charset: "utf-8",
          text: "",
          redirects,
          ...validators,
        };
      }
      if (status < 200 || status >= 300) {
        res.destroy();
        throw new CapabilityFailure(
          "INVALID_RESPONSE",
          `The page answered ${status} ${res.statusMessage ?? ""} without content.`.replace(/ +/g, " "),
        );
      }

      const { mime, charset: declared } = parseContentType(res.headers["content-type"]);
      const refusal = options.checkContentType?.(mime);
      if (refusal) {
        res.destroy();
        throw new CapabilityFailure("UNSUPPORTED_CONTENT_TYPE", refusal, false, { contentType: mime });
      }
      const declaredLength = Number(res.headers["content-length"]);
      if (Number.isFinite(declaredLength) && declaredLength > config.maxBytes) {
        res.destroy();
        throw tooLarge(url.href, config.maxBytes, declaredLength);
      }

      const body = await readCapped(
        res,
        config.maxBytes,
        url.href,
        stats,
        abortFailure,
        () => abortReason !== undefined,
      );
      if (options.binary) {
        return {
          requestedUrl,
          finalUrl: url.href,
          status,
          contentType: mime,
          charset: "",
          text: "",
          bytes: body,
          redirects,
          ...validators,
        };
      }
      const charset = sniffCharset(body, mime, declared);
      return {
        requestedUrl,
        finalUrl: url.href,
        status,
        contentType: mime,
        charset,
        text: decodeBody(body, charset),
        redirects,
        ...validators,
      };
    }
  } finally {
    clearTimeout(totalTimer);
    options.signal?.removeEventListener("abort", onCallerAbort);
  }
}

function headerValue(v: string | string[] | undefined): string | null {
  const first = Array.isArray(v) ? v[0] : v;
  return first ? first.slice(0, 500) : null;
}

function conditionalHeaders(options: TSafeFetchOptions): Record<string, string> {
  const out: Record<string, string> = {};
  if (options.ifNoneMatch) out["if-none-match"] = options.ifNoneMatch;
  if (options.ifModifiedSince) out["if-modified-since"] = options.ifModifiedSince;
  return out;
}

function stripHash(url: URL): string {
  return url.hash ? url.href.slice(0, url.href.length - url.hash.length) : url.href;
}

type TSendOptions = {
  allowed: boolean;
  via: string | undefined;
  config: TFetchConfig;
  agent: http.Agent;
  signal: AbortSignal;
  accept: string | undefined;
  conditional: Record<string, string>;
  /** Another method, body and headers than a GET's (a webhook's POST, a rendering browser's request). */
  request: TRawRequest | undefined;
  onSent: () => void;
  abortFailure: () => CapabilityFailure;
  isAborted: () => boolean;
};

type TRawRequest = { method: string; body?: string | Buffer; headers: Record<string, string> };

/** How often a request that met a closed keep-alive connection is sent again (each try takes another pooled socket). */
const STALE_SOCKET_RETRIES = 2;

/** A reused keep-alive socket the server had closed: reset or broken before any answer came (nothing was processed). */
class StaleSocket extends Error {}

/**
 * Sends one GET (or `o.request`) and resolves with the response head (headers timeout applies until then). A server
 * may close an idle keep-alive connection just as the pool hands it out; the request then fails at once, with no
 * answer. A GET or HEAD is sent again on another socket, as Node's documentation advises (`request.reusedSocket`);
 * a POST is not (its effect cannot be known), and its failure is reported as before.
 */
async function send(url: URL, o: TSendOptions): Promise<IncomingMessage> {
  for (let retries = 0; ; retries++) {
    try {
      return await sendOnce(url, o, retries < STALE_SOCKET_RETRIES);
    } catch (error) {
      if (!(error instanceof StaleSocket)) throw error;
    }
  }
}

function sendOnce(url: URL, o: TSendOptions, mayRetry: boolean): Promise<IncomingMessage> {
  const method = o.request?.method ?? "GET";
  return new Promise<IncomingMessage>((resolve, reject) => {
    const mod = url.protocol === "https:" ? https : http;
    let headersTimedOut = false;
    const req = mod.request(url, {
      method,
      agent: o.agent,
      signal: o.signal,
      lookup: o.allowed ? undefined : guardedLookup(o.config.resolve ?? defaultResolve, url.href, o.via),
      headers: {
        "user-agent": o.config.userAgent,
        accept: o.accept ?? "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.1",
        "accept-encoding": "gzip, deflate, br",
        "accept-language": "en-US,en;q=0.8",
        ...o.conditional,
        ...o.request?.headers,
        ...(o.request?.body !== undefined ? { "content-length": String(Buffer.byteLength(o.request.body)) } : {}),
      },
    });
    const headersTimer = setTimeout(() => {
      headersTimedOut = true;
      req.destroy();
    }, o.config.headersTimeoutMs);
    // Counted once the socket is connected, i.e. after the address checks passed.
    req.once("socket", (socket) => {
      if (!socket.connecting) o.onSent();
      else socket.once("connect", o.onSent);
    });
    req.once("response", (res) => {
      clearTimeout(headersTimer);
      resolve(res);
    });
    req.once("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(headersTimer);
      if (err instanceof CapabilityFailure) reject(err);
      else if (headersTimedOut) {
        reject(
          new CapabilityFailure(
            "TIMEOUT",
            `${url.host} did not start answering within ${seconds(o.config.headersTimeoutMs)} (${url.href}). It will be retried.`,
            true,
          ),
        );
      } else if (o.isAborted()) reject(o.abortFailure());
      else if (
        mayRetry &&
        req.reusedSocket &&
        (method === "GET" || method === "HEAD") &&
        (err.code === "ECONNRESET" || err.code === "EPIPE")
      ) {
        reject(new StaleSocket(err.message));
      } else reject(describeNetworkError(err, url));
    });
    req.end(o.request?.body);
  });
}

/** Streams the (decompressed) body into memory, aborting as soon as it passes maxBytes. */
async function readCapped(
  res: IncomingMessage,
  maxBytes: number,
  url: string,
  stats: TFetchStats,
  abortFailure: () => CapabilityFailure,
  isAborted: () => boolean,
): Promise<Buffer> {
  const decoder = decompressor(res.headers["content-encoding"]);
  const source: Readable = decoder ? pipeline(res, decoder, () => {}) : res;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of source) {
      const buf = chunk as Buffer;
      total += buf.length;
      if (total > maxBytes) {
        res.destroy();
        source.destroy();
        throw tooLarge(url, maxBytes);
      }
      chunks.push(buf);
    }
  } catch (err) {
    if (err instanceof CapabilityFailure) throw err;
    if (isAborted()) throw abortFailure();
    const e = err as NodeJS.ErrnoException;
    if (e.code?.startsWith("Z_") || e.code === "ERR__ERROR") {
      throw new CapabilityFailure("INVALID_RESPONSE", `${url} sent a body that could not be decompressed.`, true);
    }
    throw new CapabilityFailure(
      "CONNECTION_FAILED",
      `The connection dropped while reading ${url} (${e.code ?? e.message}). It will be retried.`,
      true,
    );
  } finally {
    stats.bytes += total;
  }
  return Buffer.concat(chunks, total);
}

export type TGuardedExchange = { status: number; headers: Record<string, string>; body: Buffer };

/**
 * One request as a browser made it (docs/page-reading.md, "Pages that need a browser"), sent through the fetch's own connection path: the address checks
 * run at connect time on the addresses the socket really uses (so a name that resolves to a public address when
 * checked and to a private one a moment later is still refused), no redirect is followed (the browser asks for the
 * next hop, which comes back through here), the body is decompressed and capped like a page's.
 */
export async function guardedExchange(
  rawUrl: string,
  config: TFetchConfig,
  request: TRawRequest & { signal: AbortSignal; stats: TFetchStats },
): Promise<TGuardedExchange> {
  const url = new URL(rawUrl);
  const allowed = isAllowedHost(url, config.allowHosts);
  precheck(url, allowed);
  const pool = agentsFor(config);
  const aborted = () => new CapabilityFailure("TIMEOUT", `Timed out loading ${url.href} in the browser.`, true);
  const { signal, stats, ...raw } = request;
  const res = await send(url, {
    allowed,
    via: undefined,
    config,
    agent: url.protocol === "https:" ? pool.https : pool.http,
    signal,
    accept: raw.headers.accept,
    conditional: {},
    request: raw,
    onSent: () => {
      stats.requests++;
    },
    abortFailure: aborted,
    isAborted: () => signal.aborted,
  });
  const body = await readCapped(res, config.maxBytes, url.href, stats, aborted, () => signal.aborted);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    // The body is handed over decompressed and whole, so its encoding and length headers no longer apply.
    if (value === undefined || name === "content-encoding" || name === "content-length") continue;
    headers[name] = Array.isArray(value) ? value.join(name === "set-cookie" ? "\n" : ", ") : value;
  }
  return { status: res.statusCode ?? 0, headers, body };
}

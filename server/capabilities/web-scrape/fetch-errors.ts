import { parseRetryAfter } from "../../lib/retry-after";
import { CapabilityFailure } from "../envelope";

/** User-facing failures for safe-fetch: what happened, and what to do about it. */

export function describeNetworkError(err: NodeJS.ErrnoException, url: URL): CapabilityFailure {
  const host = url.host;
  switch (err.code) {
    case "ENOTFOUND":
      return new CapabilityFailure(
        "DNS_FAILED",
        `Could not find the site ${host} (DNS lookup failed). Check the address.`,
        false,
      );
    case "EAI_AGAIN":
      return new CapabilityFailure(
        "DNS_FAILED",
        `Could not look up ${host} right now (temporary DNS failure). It will be retried.`,
        true,
      );
    case "ECONNREFUSED":
      return new CapabilityFailure(
        "CONNECTION_FAILED",
        `${host} refused the connection. The site may be down; it will be retried.`,
        true,
      );
    case "ECONNRESET":
    case "EPIPE":
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return new CapabilityFailure(
        "CONNECTION_FAILED",
        `The connection to ${host} failed (${err.code}). It will be retried.`,
        true,
      );
    case "HPE_HEADER_OVERFLOW":
    case "HPE_INVALID_CONSTANT":
    case "HPE_INVALID_HEADER_TOKEN":
      return new CapabilityFailure("INVALID_RESPONSE", `${host} sent a malformed HTTP response (${err.code}).`, true);
    default:
      if (err.code?.startsWith("ERR_TLS") || err.code?.includes("CERT") || /certificate|ssl|tls/i.test(err.message)) {
        return new CapabilityFailure(
          "CONNECTION_FAILED",
          `Could not open a secure connection to ${host}: ${err.message}. The site's HTTPS certificate may be invalid.`,
          false,
        );
      }
      return new CapabilityFailure("CONNECTION_FAILED", `Fetching ${url.href} failed: ${err.message}.`, true);
  }
}

/**
 * An HTTP error status as a failure. A 429 or 503 with a Retry-After carries `details.retryAfterMs`: the host gate then
 * holds that host for every tracker on it (docs/scheduling.md "Politeness per host").
 */
export function httpError(
  status: number,
  statusText: string,
  url: string,
  retryAfter?: string | null,
): CapabilityFailure {
  const phrase = `${status} ${statusText}`.trim();
  const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(retryAfter) : undefined;
  const details = { httpStatus: status, url, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  const wait = retryAfterMs !== undefined ? `it asked us to wait ${Math.ceil(retryAfterMs / 1000)} s` : undefined;
  if (status === 429) {
    return new CapabilityFailure(
      "RATE_LIMITED",
      `The page answered ${phrase}: the site is rate-limiting us. ${wait ? `It ${wait.slice(3)}, then it will be retried.` : "It will be retried later."}`,
      true,
      details,
    );
  }
  if (status >= 500) {
    return new CapabilityFailure(
      "HTTP_ERROR",
      `The page answered ${phrase}. This is usually temporary on the site's side; ${wait ? `${wait}, then it will be retried.` : "it will be retried."}`,
      true,
      details,
    );
  }
  if (status === 404 || status === 410) {
    return new CapabilityFailure(
      "HTTP_ERROR",
      `The page answered ${phrase}: ${url} does not exist (any more). Check the address.`,
      false,
      details,
    );
  }
  if (status === 401 || status === 403) {
    return new CapabilityFailure(
      "HTTP_ERROR",
      `The page answered ${phrase}: it requires sign-in or refuses automated access. Only public pages can be tracked.`,
      false,
      details,
    );
  }
  return new CapabilityFailure("HTTP_ERROR", `The page answered ${phrase}.`, status === 408, details);
}

export function tooLarge(url: string, max: number, seen?: number): CapabilityFailure {
  const mb = (n: number) => `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)} MB`;
  return new CapabilityFailure(
    "TOO_LARGE",
    `The page at ${url} is larger than the ${mb(max)} limit${seen ? ` (${mb(seen)})` : ""}. Track a smaller page, or raise FETCH_MAX_BYTES.`,
    false,
    { maxBytes: max },
  );
}

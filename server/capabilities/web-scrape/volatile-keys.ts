import { cleanUrl } from "./clean-url";

/**
 * Keys dropped from JSON bodies and JSON-LD before hashing. Deliberately conservative: only
 * request/response-scoped metadata that changes on every fetch while the content stays the same.
 * Content dates (updatedAt, dateModified, datePublished…) are KEPT — when they move, the content
 * usually moved too, and hiding a real change is worse than one extra fill.
 *
 * Keys are compared case-insensitively with `_`, `-` and `@` removed, so request_id, requestId,
 * X-Request-Id all match "requestid".
 */
export const VOLATILE_JSON_KEYS: ReadonlySet<string> = new Set([
  "requestid",
  "traceid",
  "spanid",
  "correlationid",
  "timestamp",
  "ts",
  "servertime",
  "currenttime",
  "generatedat",
  "generatedtime",
  "renderedat",
  "fetchedat",
  "retrievedat",
  "responsetime",
  "elapsed",
  "elapsedms",
  "took",
  "etag",
  "nonce",
  "csrf",
  "csrftoken",
  "xsrftoken",
  "authenticitytoken",
  "buildid",
  "buildhash",
  "buildtime",
  "sessionid",
  "cachekey",
  "cachebuster",
]);

/**
 * Dropped from JSON-LD only: offer fields that roll forward on their own (many shops set
 * priceValidUntil to "today + 1 year" on every render) without the offer changing.
 */
export const VOLATILE_JSON_LD_KEYS: ReadonlySet<string> = new Set(["pricevaliduntil"]);

const normalizeKey = (k: string) => k.replace(/[-_@]/g, "").toLowerCase();

export function isVolatileKey(key: string): boolean {
  return VOLATILE_JSON_KEYS.has(normalizeKey(key));
}

/**
 * Deep copy without volatile keys (and, when `cleanUrls`, absolute URLs stripped of tracking
 * parameters — used for JSON-LD, whose `url` fields often carry campaign tags).
 */
export function dropVolatileKeys(
  value: unknown,
  options: { cleanUrls?: boolean; extraKeys?: ReadonlySet<string> } = {},
  depth = 0,
): unknown {
  if (depth > 64) return null; // pathological nesting; keep the document bounded
  if (Array.isArray(value)) return value.map((v) => dropVolatileKeys(v, options, depth + 1));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (isVolatileKey(k) || options.extraKeys?.has(normalizeKey(k)) || v === undefined) continue;
      out[k] = dropVolatileKeys(v, options, depth + 1);
    }
    return out;
  }
  if (options.cleanUrls && typeof value === "string" && /[?;(]/.test(value) && /^https?:\/\//i.test(value)) {
    return cleanUrl(value) ?? value;
  }
  return value;
}

/**
 * PostgreSQL refuses NUL (U+0000) in text and jsonb, and a lone UTF-16 surrogate cannot be encoded
 * as UTF-8: one such character in a page made every refresh of its tracker fail. Page-derived text
 * goes through these before it can reach the database (docs/design.md §8: untrusted data).
 */

// NUL, and surrogates that are not part of a pair.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what must go
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** ES2024's String.prototype.isWellFormed (Node 20+; the compiler's lib is ES2023). */
type TWellFormed = { isWellFormed(): boolean };

/** The text without NUL characters and lone surrogates. */
export function sanitizeText(text: string): string {
  // Nearly every page has neither: two native scans instead of a look-behind pattern over the whole text.
  if ((text as string & TWellFormed).isWellFormed() && !text.includes("\u0000")) return text;
  return text.replace(UNSTORABLE, "");
}

const MAX_DEPTH = 64;

/** A deep copy of JSON-like data with every string (keys included) sanitised; other values as they are. */
export function sanitizeForStorage<T>(value: T, depth = 0): T {
  if (typeof value === "string") return sanitizeText(value) as T;
  if (depth > MAX_DEPTH || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => sanitizeForStorage(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    out[sanitizeText(k)] = sanitizeForStorage(v, depth + 1);
  return out as T;
}

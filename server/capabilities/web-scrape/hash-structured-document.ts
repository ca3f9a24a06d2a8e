import { createHash } from "node:crypto";
import { canonicalJson } from "../../lib/canonical-json";

/**
 * sha256 hex of the canonical document plus a salt (the tracker passes its definition version,
 * so re-locking a new version invalidates the pre-check even on identical content). A document that
 * carries a `formatVersion` (format-structured-document.ts) gets it as a prefix, "d2:<hex>", so the
 * refresh can tell a hash made under an older format (unprefixed = format 1) and re-hash once.
 */
export function hashStructuredDocument(doc: unknown, salt: string): string {
  const hex = createHash("sha256").update(canonicalJson(doc)).update("\n").update(salt).digest("hex");
  const version = formatVersionOf(doc);
  return version > 1 ? `d${version}:${hex}` : hex;
}

function formatVersionOf(doc: unknown): number {
  const v = typeof doc === "object" && doc !== null ? (doc as { formatVersion?: unknown }).formatVersion : undefined;
  return typeof v === "number" && Number.isInteger(v) ? v : 1;
}

/** The document format a stored hash was made under (1 for hashes from before formats were versioned). */
export function documentFormatOfHash(hash: string): number {
  const m = /^d(\d+):/.exec(hash);
  return m ? Number(m[1]) : 1;
}

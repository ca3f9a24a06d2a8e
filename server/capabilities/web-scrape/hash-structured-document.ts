import { createHash } from "node:crypto";
import { canonicalJson } from "../../lib/canonical-json";

/**
 * sha256 hex of the canonical document plus a salt (the tracker passes its definition version,
 * so re-locking a new version invalidates the pre-check even on identical content).
 */
export function hashStructuredDocument(doc: unknown, salt: string): string {
  return createHash("sha256").update(canonicalJson(doc)).update("\n").update(salt).digest("hex");
}

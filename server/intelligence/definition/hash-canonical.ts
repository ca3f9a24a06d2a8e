import { createHash } from "node:crypto";
import { canonicalJson } from "../../lib/canonical-json";

/**
 * sha256 (hex) of canonicalJson(value). Server-only (node:crypto), so it is not re-exported from the
 * definition index, which client components (rule descriptions in the setup UI) may import.
 */
export function hashCanonical(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

import { createHash } from "node:crypto";
import { canonicalJson } from "../../lib/canonical-json";

/**
 * sha256 (hex) of canonicalJson(value). Server-only (node:crypto), like this whole folder: client code takes the
 * definition's shape from contracts/definition.
 */
export function hashCanonical(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

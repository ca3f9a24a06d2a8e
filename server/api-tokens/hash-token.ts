import { createHash } from "node:crypto";

export const TOKEN_PREFIX = "bw_";

/** sha256 hex: tokens are 32 random bytes, so a fast hash is enough (no password stretching needed). */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

import type { TContextFileKind } from "@/contracts/context-files";
import { getEnv } from "../env";

export type TContextLimits = {
  maxBytes: number;
  maxFiles: number;
  kinds: readonly TContextFileKind[];
  maxTextChars: number;
};

/** The configured limits (server/env.ts: CONTEXT_FILE_MAX_BYTES, CONTEXT_FILES_PER_TRACKER, …). */
export function contextLimitsFromEnv(): TContextLimits {
  const env = getEnv();
  return {
    maxBytes: env.CONTEXT_FILE_MAX_BYTES,
    maxFiles: env.CONTEXT_FILES_PER_TRACKER,
    kinds: env.CONTEXT_FILE_KINDS,
    maxTextChars: env.CONTEXT_MAX_TEXT_CHARS,
  };
}

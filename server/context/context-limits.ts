import type { TContextFileKind } from "@/contracts/context-files";
import { getEnv } from "../env";
import type { TExtractionBudget } from "../lib/file-text/extraction-budget";

export { extractionBudget, type TExtractionBudget } from "../lib/file-text/extraction-budget";

export type TContextLimits = {
  maxBytes: number;
  maxFiles: number;
  kinds: readonly TContextFileKind[];
  maxTextChars: number;
  /** Defaults to the configured budget (extractionBudgetFromEnv). */
  extraction?: Partial<TExtractionBudget>;
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

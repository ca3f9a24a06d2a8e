import { EMPTY_ENHANCEMENT, type TEnhancementResult } from "./schema";

/** Rules mode: no slot fills, no synthetic items — the feed works without them. */
export function rulesEnhancement(): TEnhancementResult {
  return EMPTY_ENHANCEMENT;
}

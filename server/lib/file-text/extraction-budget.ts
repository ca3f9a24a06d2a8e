import { getEnv } from "../../env";

/**
 * What reading one file may cost (docs/context-files.md). The worker enforces the time and heap budgets; the parsers
 * check the rest before and while they inflate or walk the file, so a hostile file stops at the limit, not after.
 */
export type TExtractionBudget = {
  /** Wall time for one file, from the worker starting to its answer. */
  timeoutMs: number;
  /** The worker's heap cap (V8's old generation). */
  memoryMb: number;
  pdfMaxPages: number;
  /** A .docx is a zip: the most its entries may inflate to, together. */
  docxMaxUncompressedBytes: number;
  /** …and the most one entry may inflate relative to its compressed size (zip bombs compress ~1000:1). */
  docxMaxRatio: number;
  /** Paragraphs and XML elements in the document body: a small file can hold millions of empty ones. */
  docxMaxParagraphs: number;
  docxMaxElements: number;
};

/** Generous for real documents (a 300-page report has ~10,000 paragraphs, its XML a few MB). */
const DOCX_DEFAULTS = {
  docxMaxUncompressedBytes: 50_000_000,
  docxMaxRatio: 200,
  docxMaxParagraphs: 100_000,
  docxMaxElements: 2_000_000,
} as const;

/** The budget for one extraction: the configured one (CONTEXT_EXTRACT_*, CONTEXT_PDF_MAX_PAGES), overridden by `over`. */
export function extractionBudget(over: Partial<TExtractionBudget> = {}): TExtractionBudget {
  const env = getEnv();
  return {
    timeoutMs: env.CONTEXT_EXTRACT_TIMEOUT_MS,
    memoryMb: env.CONTEXT_EXTRACT_MEMORY_MB,
    pdfMaxPages: env.CONTEXT_PDF_MAX_PAGES,
    ...DOCX_DEFAULTS,
    ...over,
  };
}

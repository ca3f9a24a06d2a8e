import { z } from "zod";
import { ZIdSchema } from "./common";

/**
 * Context files (docs/design.md §3, docs/context-files.md): what the browser and the server agree on — the kinds a person may attach,
 * the file list's view and the requests of the context-file operations. Limits themselves are configuration
 * (server/env.ts) and travel to the page inside the list response.
 */

export const CONTEXT_FILE_KINDS = ["text", "markdown", "csv", "pdf", "docx"] as const;
export const ZContextFileKindSchema = z.enum(CONTEXT_FILE_KINDS);
export type TContextFileKind = z.infer<typeof ZContextFileKindSchema>;

/** Extension → kind; the extension decides (browsers send unreliable media types), the bytes must agree. */
export const CONTEXT_FILE_EXTENSIONS: Record<string, TContextFileKind> = {
  txt: "text",
  text: "text",
  md: "markdown",
  markdown: "markdown",
  csv: "csv",
  pdf: "pdf",
  docx: "docx",
};

/** For the file picker's `accept`. */
export const CONTEXT_FILE_ACCEPT = Object.keys(CONTEXT_FILE_EXTENSIONS)
  .map((ext) => `.${ext}`)
  .join(",");

export function contextFileKindOf(fileName: string): TContextFileKind | null {
  const ext = fileName.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  return ext ? (CONTEXT_FILE_EXTENSIONS[ext] ?? null) : null;
}

/**
 * Embeddings for hybrid retrieval: `off` — no embedding model configured (full-text search only); `pending` — being
 * embedded; `ready` — full text and vectors; `failed` — full text only (the file is stored and searchable).
 */
export const CONTEXT_EMBEDDING_STATUSES = ["off", "pending", "ready", "failed"] as const;
export const ZContextEmbeddingStatusSchema = z.enum(CONTEXT_EMBEDDING_STATUSES);
export type TContextEmbeddingStatus = z.infer<typeof ZContextEmbeddingStatusSchema>;

/** A value the locked definition's rules read from a file (its `contextValues`), and those rules. */
export const ZContextFileUseSchema = z.object({
  name: z.string().describe("The bound value's name, e.g. our_price"),
  value: z.number().describe("What the file states for it now"),
  rules: z.array(z.string()).describe("The locked rules that compare with it, in plain language"),
});
export type TContextFileUse = z.infer<typeof ZContextFileUseSchema>;

export const ZContextFileViewSchema = z.object({
  id: z.string(),
  trackerId: z.string(),
  name: z.string(),
  kind: ZContextFileKindSchema,
  size: z.number().int().describe("Bytes as uploaded"),
  status: z.enum(["indexed"]).describe("indexed: its text is chunked and searchable"),
  embeddingStatus: ZContextEmbeddingStatusSchema,
  embeddingError: z.string().nullable().describe("Why embedding failed, when it did"),
  units: z.number().int().describe("Pages (PDF), rows (CSV) or lines"),
  chunkCount: z.number().int(),
  createdAt: z.date(),
  updatedAt: z.date(),
  citedBy: z.number().int().describe("How many timeline changes cited this file"),
  lastCitedAt: z.date().nullable(),
  usedBy: z
    .array(ZContextFileUseSchema)
    .default([])
    .describe(
      "Values the locked rules read from this file: deleting or replacing it keeps their last value, marked, until the tracker is edited",
    ),
});
export type TContextFileView = z.infer<typeof ZContextFileViewSchema>;

export const ZListContextFilesRequestSchema = z.object({ trackerId: ZIdSchema });
export const ZListContextFilesResponseSchema = z.object({
  files: z.array(ZContextFileViewSchema),
  limits: z.object({
    maxBytes: z.number().int(),
    maxFiles: z.number().int(),
    kinds: z.array(ZContextFileKindSchema),
  }),
});
export type TListContextFilesResponse = z.infer<typeof ZListContextFilesResponseSchema>;

export const ZDeleteContextFileRequestSchema = z.object({ trackerId: ZIdSchema, fileId: ZIdSchema });

/** The upload route's answer (POST /api/trackers/[id]/context-files, multipart `file` [+ `replaceFileId`]). */
export const ZUploadContextFileResponseSchema = z.object({ file: ZContextFileViewSchema, replaced: z.boolean() });

export function formatFileSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(bytes < 10_000 ? 1 : 0)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

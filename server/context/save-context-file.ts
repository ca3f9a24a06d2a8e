import { createHash } from "node:crypto";
import {
  CONTEXT_FILE_KINDS,
  contextFileKindOf,
  formatFileSize,
  type TContextFileView,
} from "@/contracts/context-files";
import { getEmbeddingModel, type TEmbeddingModel } from "../ai";
import type { TDb } from "../db";
import { AppError } from "../errors";
import { extractTextInWorker } from "../lib/file-text/extract-in-worker";
import { sanitizeText } from "../lib/sanitize-text";
import { isUniqueViolation } from "../lib/unique-violation";
import { CONTEXT_FILE_VIEW_SELECT, citationCounts, toContextFileView } from "./context-file-view";
import { contextLimitsFromEnv, extractionBudget, type TContextLimits } from "./context-limits";
import { embedContextFile } from "./embed-context-file";
import { lockedBindings } from "./file-bindings";
import { keepValuesBeforeReplace } from "./kept-context-values";
import { assertOwnedTracker } from "./owned-tracker";
import { resolveContextValues } from "./resolve-context-values";

export type TSaveContextFileInput = {
  userId: string;
  trackerId: string;
  name: string;
  mediaType: string;
  bytes: Uint8Array;
  /** Replace this file (re-index it): its row keeps its id, its chunks are rebuilt. */
  replaceFileId?: string | null;
  limits?: TContextLimits;
  /** The embedding model (default: the configured one; null: full-text only). */
  embeddingModel?: TEmbeddingModel | null;
};

const MAX_NAME_CHARS = 200;

/**
 * Attaches a file to the person's tracker, or replaces one: checks (size, kind, count), extracts and chunks the text
 * in a worker with a time and memory budget (extract-in-worker.ts), then writes the file and its chunks in ONE transaction — an upload that fails anywhere stores nothing, a replace
 * that fails leaves the old file as it was. The chunks' full-text vectors are computed by the database. Then, when an
 * embedding model is configured, the chunks are embedded (embedContextFile) — outside that transaction, so an
 * embedding failure leaves the file stored, searchable by full text, and marked `failed`.
 */
export async function saveContextFile(
  db: TDb,
  input: TSaveContextFileInput,
): Promise<{ file: TContextFileView; replaced: boolean }> {
  const limits = input.limits ?? contextLimitsFromEnv();
  const name = cleanName(input.name);
  const kind = contextFileKindOf(name);
  if (!kind || !limits.kinds.includes(kind)) {
    const allowed =
      limits.kinds.length === CONTEXT_FILE_KINDS.length ? ".txt, .md, .csv, .pdf or .docx" : limits.kinds.join(", ");
    throw new AppError("UNPROCESSABLE", `“${name}” is not a supported file type. Attach ${allowed}.`, {
      details: { reason: "unsupported_type" },
    });
  }
  if (input.bytes.byteLength > limits.maxBytes) {
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `“${name}” is ${formatFileSize(input.bytes.byteLength)}; files can be at most ${formatFileSize(limits.maxBytes)}.`,
      { details: { maxBytes: limits.maxBytes } },
    );
  }
  if (input.bytes.byteLength === 0) throw new AppError("UNPROCESSABLE", `“${name}” is empty.`);
  await assertOwnedTracker(db, input);

  const extracted = await extractTextInWorker({
    kind,
    name,
    bytes: input.bytes,
    maxChars: limits.maxTextChars,
    budget: extractionBudget(limits.extraction),
  });
  const embeddingModel = input.embeddingModel === undefined ? getEmbeddingModel() : input.embeddingModel;
  const sha256 = createHash("sha256").update(input.bytes).digest("hex");
  const fields = {
    name,
    kind,
    mediaType: input.mediaType.slice(0, 200) || "application/octet-stream",
    size: input.bytes.byteLength,
    sha256,
    content: Buffer.from(input.bytes) as Uint8Array<ArrayBuffer>,
    text: sanitizeText(extracted.text),
    units: extracted.units,
    chunkCount: extracted.chunks.length,
    status: "indexed",
    // A replace drops the old vectors with the old chunks; the new ones are embedded below.
    embeddingStatus: embeddingModel ? "pending" : "off",
    embeddingModel: null,
    embeddingError: null,
  };
  const owner = { userId: input.userId, trackerId: input.trackerId };

  try {
    const saved = await db.$transaction(async (tx) => {
      let fileId: string;
      if (input.replaceFileId) {
        // What the locked rules read from the old text is kept first (kept-context-values.ts): a replacement that
        // no longer states a value leaves them deciding with it, marked, never silently switched off.
        const locked = await lockedBindings(tx, owner);
        if (locked) {
          const bound = await resolveContextValues(tx, { ...owner, values: locked.values });
          await keepValuesBeforeReplace(tx, {
            ...owner,
            fileId: input.replaceFileId,
            version: locked.version,
            bound,
            at: new Date(),
          });
        }
        const { count } = await tx.contextFile.updateMany({
          where: { id: input.replaceFileId, ...owner },
          data: fields,
        });
        if (count === 0) throw new AppError("NOT_FOUND", "The file to replace is not attached to this tracker.");
        fileId = input.replaceFileId;
        await tx.contextChunk.deleteMany({ where: { fileId, ...owner } });
      } else {
        if (await tx.contextFile.findFirst({ where: { ...owner, name }, select: { id: true } })) throw nameTaken(name);
        const existing = await tx.contextFile.count({ where: owner });
        if (existing >= limits.maxFiles) {
          throw new AppError(
            "CONFLICT",
            `This tracker already has ${limits.maxFiles} files, the most it can hold. Delete or replace one first.`,
            { details: { reason: "too_many_files", maxFiles: limits.maxFiles } },
          );
        }
        fileId = (await tx.contextFile.create({ data: { ...owner, ...fields }, select: { id: true } })).id;
      }
      await tx.contextChunk.createMany({
        data: extracted.chunks.map((chunk, ordinal) => ({
          fileId,
          ...owner,
          ordinal,
          page: chunk.page,
          location: chunk.location,
          text: sanitizeText(chunk.text),
        })),
      });
      return tx.contextFile.findUniqueOrThrow({ where: { id: fileId }, select: CONTEXT_FILE_VIEW_SELECT });
    });
    const embedded = embeddingModel
      ? await embedContextFile(db, { ...owner, fileId: saved.id, model: embeddingModel }).then(() =>
          db.contextFile.findFirst({ where: { id: saved.id, ...owner }, select: CONTEXT_FILE_VIEW_SELECT }),
        )
      : saved;
    const cited = await citationCounts(db, { ...owner, fileIds: [saved.id] });
    return { file: toContextFileView(embedded ?? saved, cited.get(saved.id)), replaced: Boolean(input.replaceFileId) };
  } catch (error) {
    // Two uploads of one name at once: the unique index decides.
    if (isUniqueViolation(error)) throw nameTaken(name);
    throw error;
  }
}

function nameTaken(name: string): AppError {
  return new AppError("CONFLICT", `A file named “${name}” is already attached; replace it instead.`, {
    details: { reason: "name_taken" },
  });
}

/** The file's own name (no folders a browser may send), trimmed, storable and of a sane length. */
function cleanName(raw: string): string {
  const base = sanitizeText(raw.split(/[\\/]/).at(-1) ?? "")
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters have no place in a file name
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim();
  if (!base) throw new AppError("BAD_REQUEST", "The file has no name.");
  if (base.length <= MAX_NAME_CHARS) return base;
  const ext = base.match(/\.[a-z0-9]{1,8}$/i)?.[0] ?? "";
  return `${base.slice(0, MAX_NAME_CHARS - ext.length - 1)}…${ext}`;
}

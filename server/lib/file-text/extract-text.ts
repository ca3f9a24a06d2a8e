import type { TContextFileKind } from "@/contracts/context-files";
import { AppError } from "../../errors";
import { checkDocxArchive } from "./check-docx-archive";
import { CHUNK_OVERLAP, CHUNK_SIZE, chunkText, lineAt } from "./chunk-text";
import type { TExtractionBudget } from "./extraction-budget";

/** One indexed piece of a file: its text and where it sits, for people ("p. 2", "lines 4–30", "rows 2–40"). */
export type TExtractedChunk = { text: string; page: number | null; location: string };

export type TExtracted = {
  /** What bound context values read again later (CSV: the file itself, so cells keep their columns). */
  text: string;
  /** Pages (PDF), rows (CSV) or lines. */
  units: number;
  chunks: TExtractedChunk[];
  /** PDF: each page's text, in order (a PDF source keeps its pages apart). */
  pages?: string[];
};

const unreadable = (message: string, cause?: unknown) => new AppError("UNPROCESSABLE", message, { cause });

/**
 * Text out of an uploaded file with maintained parsers (unpdf for PDF, mammoth for DOCX, papaparse for CSV), then
 * chunked with overlap. The limits hold while reading, not after: a PDF's page count before its pages, its text cap
 * page by page, a .docx's inflation and paragraphs before mammoth sees it. Runs in a worker with a time and heap
 * budget (extract-in-worker.ts). Every failure is an AppError naming the file and what to do; nothing is stored here.
 */
export async function extractText(
  kind: TContextFileKind,
  name: string,
  bytes: Uint8Array,
  maxChars: number,
  budget: TExtractionBudget,
): Promise<TExtracted> {
  const cap = (length: number) => {
    if (length > maxChars) throw tooMuchText(name, maxChars);
  };
  const extracted = await extractByKind(kind, name, bytes, cap, budget);
  if (!extracted.text.trim() || extracted.chunks.length === 0) {
    throw unreadable(
      kind === "pdf"
        ? `“${name}” has no text layer (a scanned PDF?). Export it with text, or paste its text into a .txt file.`
        : `“${name}” has no text to read.`,
    );
  }
  cap(extracted.text.length);
  return extracted;
}

function tooMuchText(name: string, maxChars: number): AppError {
  return new AppError(
    "PAYLOAD_TOO_LARGE",
    `“${name}” holds more than ${maxChars.toLocaleString("en-US")} characters of text; split it into smaller files.`,
    { details: { limit: "maxTextChars", maxChars } },
  );
}

type TCap = (length: number) => void;

async function extractByKind(
  kind: TContextFileKind,
  name: string,
  bytes: Uint8Array,
  cap: TCap,
  budget: TExtractionBudget,
): Promise<TExtracted> {
  switch (kind) {
    case "text":
    case "markdown":
      return fromLines(decodeUtf8(name, bytes, cap));
    case "csv":
      return fromCsv(name, decodeUtf8(name, bytes, cap));
    case "pdf":
      return fromPdf(name, bytes, cap, budget);
    case "docx":
      return fromDocx(name, bytes, cap, budget);
  }
}

function decodeUtf8(name: string, bytes: Uint8Array, cap: TCap): string {
  let text: string;
  try {
    // A BOM is dropped; NUL cannot be stored in PostgreSQL text and means this is not a text file.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    if (text.includes("\u0000")) throw new Error("NUL byte");
  } catch (error) {
    throw unreadable(`“${name}” is not UTF-8 text; save it as UTF-8 and try again.`, error);
  }
  cap(text.length); // before it is split and chunked
  return text.replace(/\r\n?/g, "\n");
}

function fromLines(text: string): TExtracted {
  const chunks = chunkText(text).map((piece) => {
    const first = lineAt(text, piece.start);
    const last = lineAt(text, Math.max(piece.start, piece.end - 1));
    return { text: piece.text, page: null, location: first === last ? `line ${first}` : `lines ${first}–${last}` };
  });
  return { text, units: text.split("\n").length, chunks };
}

async function fromCsv(name: string, text: string): Promise<TExtracted> {
  const { default: Papa } = await import("papaparse");
  const parsed = Papa.parse<string[]>(text.trim(), { skipEmptyLines: "greedy" });
  const rows = parsed.data;
  const fatal = parsed.errors.find((e) => e.type === "Quotes");
  if (fatal || rows.length === 0) {
    throw unreadable(
      `“${name}” is not a readable CSV file${fatal ? ` (row ${(fatal.row ?? 0) + 1}: ${fatal.message})` : ""}.`,
    );
  }
  const [header, ...body] = rows as [string[], ...string[][]];
  // Each row as "label — column: value; …", so full-text search and the judge see what every cell means.
  const lines = body.map((cells) =>
    cells
      .map((cell, i) => (i === 0 ? cell.trim() : `${(header[i] ?? `column ${i + 1}`).trim()}: ${cell.trim()}`))
      .join(" — "),
  );
  const chunks: TExtractedChunk[] = [];
  const headerLine = header.join(", ");
  let from = 0;
  while (from < lines.length) {
    let to = from;
    let size = headerLine.length;
    while (to < lines.length && (to === from || size + (lines[to]?.length ?? 0) < CHUNK_SIZE)) {
      size += (lines[to]?.length ?? 0) + 1;
      to++;
    }
    // Rows are numbered as in a spreadsheet: the header is row 1.
    const first = from + 2;
    const last = to + 1;
    chunks.push({
      text: `${headerLine}\n${lines.slice(from, to).join("\n")}`,
      page: null,
      location: first === last ? `row ${first}` : `rows ${first}–${last}`,
    });
    if (to >= lines.length) break;
    // One row of overlap keeps a row's neighbour beside it.
    from = to > from + 1 ? to - 1 : to;
  }
  return { text, units: rows.length, chunks };
}

async function fromPdf(name: string, bytes: Uint8Array, cap: TCap, budget: TExtractionBudget): Promise<TExtracted> {
  if (!startsWith(bytes, "%PDF-")) throw unreadable(`“${name}” is not a PDF file.`);
  const { getDocumentProxy } = await import("unpdf");
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // unpdf may transfer the buffer to its worker: hand it a copy, the caller keeps the bytes to store.
    pdf = await getDocumentProxy(new Uint8Array(bytes));
  } catch (error) {
    throw unreadable(`“${name}” could not be read as a PDF (damaged or password-protected?).`, error);
  }
  try {
    if (pdf.numPages > budget.pdfMaxPages) {
      throw new AppError(
        "PAYLOAD_TOO_LARGE",
        `“${name}” has ${pdf.numPages.toLocaleString("en-US")} pages; files can have at most ${budget.pdfMaxPages.toLocaleString("en-US")}. Split it into smaller files.`,
        { details: { limit: "pdfMaxPages", pdfMaxPages: budget.pdfMaxPages, pages: pdf.numPages } },
      );
    }
    // Page by page, as unpdf's extractText joins a page's items, stopping at the text cap.
    const pages: string[] = [];
    let total = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      page.cleanup();
      const text = content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
      total += text.length;
      cap(total);
      pages.push(text);
    }
    const chunks: TExtractedChunk[] = [];
    pages.forEach((pageText, i) => {
      const clean = pageText.replace(/[ \t]+\n/g, "\n").trim();
      for (const piece of chunkText(clean, CHUNK_SIZE, CHUNK_OVERLAP)) {
        chunks.push({ text: piece.text, page: i + 1, location: `p. ${i + 1}` });
      }
    });
    const trimmed = pages.map((p) => p.trim());
    return { text: trimmed.join("\n\n"), units: pages.length, chunks, pages: trimmed };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unreadable(`“${name}” could not be read as a PDF (damaged or password-protected?).`, error);
  } finally {
    await pdf.loadingTask.destroy();
  }
}

async function fromDocx(name: string, bytes: Uint8Array, cap: TCap, budget: TExtractionBudget): Promise<TExtracted> {
  if (!startsWith(bytes, "PK")) throw unreadable(`“${name}” is not a Word (.docx) document.`);
  await checkDocxArchive(name, bytes, budget);
  let text: string;
  try {
    const mammoth = await import("mammoth");
    text = (await mammoth.extractRawText({ buffer: Buffer.from(bytes) })).value;
  } catch (error) {
    throw unreadable(`“${name}” could not be read as a Word document (damaged, or not a .docx?).`, error);
  }
  cap(text.length);
  return fromLines(text.replace(/\n{3,}/g, "\n\n").trim());
}

function startsWith(bytes: Uint8Array, magic: string): boolean {
  for (let i = 0; i < magic.length; i++) if (bytes[i] !== magic.charCodeAt(i)) return false;
  return true;
}

import yauzl from "yauzl";
// Relative, not "@/…": this file also runs in the extraction worker, loaded by path (extract-worker.mjs).
import { formatFileSize } from "@/contracts/context-files";
import { AppError } from "../../errors";
import type { TExtractionBudget } from "./extraction-budget";

type TDocxBudget = Pick<
  TExtractionBudget,
  "docxMaxUncompressedBytes" | "docxMaxRatio" | "docxMaxParagraphs" | "docxMaxElements"
>;

/** Entries smaller than this are not held to the ratio: tiny XML parts compress far beyond it legitimately. */
const RATIO_FLOOR_BYTES = 1_000_000;
const MAX_ENTRIES = 10_000;
const LT = 0x3c;
const SLASH = 0x2f;
const QUESTION = 0x3f;
const BANG = 0x21;
const W = 0x77;
const COLON = 0x3a;
const P = 0x70;
/** What may follow `<w:p`: `>`, `/`, or white space before attributes. */
const TAG_END = new Set([0x3e, SLASH, 0x20, 0x09, 0x0a, 0x0d]);

export type TDocxShape = { uncompressedBytes: number; paragraphs: number; elements: number };

/**
 * Checks a .docx (a zip of XML parts) against the budget BEFORE a parser builds anything from it: the declared sizes
 * (each entry's inflation ratio, all entries together) from the central directory, then the XML parts inflated as a
 * stream — counted, never kept — with yauzl refusing any entry that inflates past what it declared. The paragraphs and
 * elements of the document are counted on the way, since a 300 KB file can hold millions of empty paragraphs that
 * would cost a DOM parser gigabytes (docs/context-files.md). Over a limit: a 413 naming it.
 */
export async function checkDocxArchive(name: string, bytes: Uint8Array, budget: TDocxBudget): Promise<TDocxShape> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      lazyEntries: true,
      validateEntrySizes: true,
      autoClose: false,
    });
  } catch (error) {
    throw damaged(name, error);
  }
  try {
    if (zip.entryCount > MAX_ENTRIES) {
      throw tooLarge(
        name,
        `has ${zip.entryCount.toLocaleString("en-US")} parts; a Word document may have at most 10,000`,
        {
          limit: "entries",
        },
      );
    }
    const xmlParts: yauzl.Entry[] = [];
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      declared += entry.uncompressedSize;
      if (declared > budget.docxMaxUncompressedBytes) throw inflatesPast(name, budget);
      if (
        entry.uncompressedSize > RATIO_FLOOR_BYTES &&
        entry.uncompressedSize > budget.docxMaxRatio * Math.max(1, entry.compressedSize)
      ) {
        const ratio = Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize));
        throw tooLarge(
          name,
          `has a part that unzips to ${ratio} times its size; a Word document's parts may unzip to at most ${budget.docxMaxRatio} times`,
          { limit: "docxMaxRatio", docxMaxRatio: budget.docxMaxRatio },
        );
      }
      if (/\.(xml|rels)$/i.test(entry.fileName)) xmlParts.push(entry);
    }
    const shape: TDocxShape = { uncompressedBytes: 0, paragraphs: 0, elements: 0 };
    for (const entry of xmlParts) {
      const body = entry.fileName === "word/document.xml";
      await countXml(zip, entry, shape, body, name, budget);
    }
    return shape;
  } catch (error) {
    throw error instanceof AppError ? error : damaged(name, error);
  } finally {
    zip.close();
  }
}

/** Streams one part through the inflater, counting bytes, opening tags and (in the body) `<w:p>` paragraphs. */
async function countXml(
  zip: yauzl.ZipFile,
  entry: yauzl.Entry,
  shape: TDocxShape,
  body: boolean,
  name: string,
  budget: TDocxBudget,
): Promise<void> {
  if (!entry.canDecodeFileData()) throw damaged(name, new Error(`${entry.fileName}: unsupported compression`));
  const stream = await zip.openReadStreamPromise(entry);
  // The previous chunk's last bytes: each byte is looked at once, with the four after it in view.
  let carry = Buffer.alloc(0);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      shape.uncompressedBytes += chunk.length;
      if (shape.uncompressedBytes > budget.docxMaxUncompressedBytes) throw inflatesPast(name, budget);
      const view = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const end = view.length - 4;
      for (let i = view.indexOf(LT); i >= 0 && i < end; i = view.indexOf(LT, i + 1)) {
        const next = view[i + 1];
        if (next === SLASH || next === QUESTION || next === BANG) continue;
        shape.elements++;
        // <w:p> / <w:p …> / <w:p/>, not <w:pPr> or <w:proofErr>
        if (body && next === W && view[i + 2] === COLON && view[i + 3] === P && TAG_END.has(view[i + 4] ?? 0)) {
          shape.paragraphs++;
        }
      }
      carry = Buffer.from(view.subarray(Math.max(0, end)));
      if (shape.elements > budget.docxMaxElements) {
        const most = budget.docxMaxElements.toLocaleString("en-US");
        throw tooLarge(name, `holds more than ${most} XML elements, the most a Word document may hold`, {
          limit: "docxMaxElements",
          docxMaxElements: budget.docxMaxElements,
        });
      }
      if (shape.paragraphs > budget.docxMaxParagraphs) {
        const most = budget.docxMaxParagraphs.toLocaleString("en-US");
        throw tooLarge(name, `holds more than ${most} paragraphs, the most a Word document may hold`, {
          limit: "docxMaxParagraphs",
          docxMaxParagraphs: budget.docxMaxParagraphs,
        });
      }
    }
  } finally {
    stream.destroy();
  }
}

function inflatesPast(name: string, budget: TDocxBudget): AppError {
  const most = formatFileSize(budget.docxMaxUncompressedBytes);
  return tooLarge(name, `unzips to more than ${most}, the most a Word document may hold`, {
    limit: "docxMaxUncompressedBytes",
    docxMaxUncompressedBytes: budget.docxMaxUncompressedBytes,
  });
}

function tooLarge(name: string, fact: string, details: Record<string, unknown>): AppError {
  return new AppError(
    "PAYLOAD_TOO_LARGE",
    `“${name}” ${fact}, so it was not read. Split it into smaller files, or save its text as a .txt file.`,
    { details },
  );
}

function damaged(name: string, cause: unknown): AppError {
  return new AppError("UNPROCESSABLE", `“${name}” could not be read as a Word document (damaged, or not a .docx?).`, {
    cause,
  });
}

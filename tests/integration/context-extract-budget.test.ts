import { describe, expect, it } from "vitest";
import { isAppError } from "@/server/errors";
import { extractTextInWorker } from "@/server/lib/file-text/extract-in-worker";
import { extractionBudget, type TExtractionBudget } from "@/server/lib/file-text/extraction-budget";
import { makeDocx, makePdf } from "../helpers/context-fixtures";
import { repeatingDocx } from "../helpers/zip-writer";

/**
 * Each budget of the extraction worker on its own (docs/context-files.md), with the real parsers in a real worker
 * thread: the limit that stops a file is the one its message and details name.
 */

const read = (kind: "docx" | "pdf", bytes: Uint8Array, over: Partial<TExtractionBudget> = {}, maxChars = 1_000_000) =>
  extractTextInWorker({ kind, name: `f.${kind}`, bytes, maxChars, budget: extractionBudget(over) });

async function refusal(work: Promise<unknown>): Promise<{ code: string; message: string; limit: unknown }> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isAppError(error)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { code: error.code, message: error.message, limit: error.details?.limit };
}

const relaxed: Partial<TExtractionBudget> = { docxMaxRatio: 1e9, docxMaxParagraphs: 1e9, docxMaxElements: 1e12 };

describe("the extraction worker's budgets", () => {
  it("reads an ordinary .docx and PDF within the default budget", async () => {
    const docx = await read("docx", await makeDocx(["Our price is 10.00", "Second paragraph"]));
    expect(docx.text).toContain("Our price is 10.00");
    const pdf = await read("pdf", await makePdf([["First page"], ["Second page"]]));
    expect(pdf.units).toBe(2);
    expect(pdf.chunks.map((c) => c.location)).toEqual(["p. 1", "p. 2"]);
  });

  it("counts paragraphs while inflating, before mammoth builds anything", async () => {
    const bytes = await repeatingDocx("<w:p/>", 200_000);
    const r = await refusal(read("docx", bytes, { ...relaxed, docxMaxParagraphs: 100_000 }));
    expect(r).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: "docxMaxParagraphs" });
    expect(r.message).toMatch(/holds more than 100,000 paragraphs/);
    // <w:pPr> and <w:proofErr> are not paragraphs: 1,000 real ones with properties pass a 1,000 limit.
    const styled = await repeatingDocx("<w:p><w:pPr><w:jc/></w:pPr><w:proofErr/><w:r><w:t>x</w:t></w:r></w:p>", 1_000);
    const read1000 = await read("docx", styled, { ...relaxed, docxMaxParagraphs: 1_000 });
    expect(read1000.text.split("\n\n")).toHaveLength(1_000);
  });

  it("counts XML elements, so millions of runs in one paragraph are refused too", async () => {
    const bytes = await repeatingDocx("<w:r><w:t/></w:r>", 600_000);
    const r = await refusal(read("docx", bytes, { ...relaxed, docxMaxElements: 1_000_000 }));
    expect(r).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: "docxMaxElements" });
  });

  it("stops a worker that outgrows its heap cap and says so", async () => {
    const bytes = await repeatingDocx("<w:p/>", 3_000_000);
    const r = await refusal(read("docx", bytes, { ...relaxed, memoryMb: 64 }));
    expect(r).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: "memoryMb" });
    expect(r.message).toMatch(/needed more than 64 MB of memory/);
  }, 60_000);

  it("stops a worker over its time budget", async () => {
    const r = await refusal(read("pdf", await makePdf([["Page"]]), { timeoutMs: 20 }));
    expect(r).toMatchObject({ code: "UNPROCESSABLE", limit: "timeoutMs" });
    expect(r.message).toMatch(/took longer than its 20 ms budget, so it was stopped/);
  });

  it("refuses a PDF over the page limit before reading its pages, and stops at the text cap page by page", async () => {
    const lines = (page: number) =>
      Array.from({ length: 8 }, (_, l) => `Page ${page} line ${l + 1}: ${"word ".repeat(8)}`);
    const pdf = await makePdf(Array.from({ length: 30 }, (_, i) => lines(i + 1)));
    const pages = await refusal(read("pdf", pdf, { pdfMaxPages: 20 }));
    expect(pages).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: "pdfMaxPages" });
    expect(pages.message).toMatch(/has 30 pages; files can have at most 20/);
    const text = await refusal(read("pdf", pdf, {}, 2_000));
    expect(text).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: "maxTextChars" });
  });
});

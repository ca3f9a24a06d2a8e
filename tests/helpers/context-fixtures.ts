import { Document, Packer, Paragraph } from "docx";
import { PDFDocument, StandardFonts } from "pdf-lib";

/** A real PDF with one text line per page (written by pdf-lib), for the real unpdf parser. */
export async function makePdf(pages: string[][]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage([400, 400]);
    lines.forEach((line, i) => {
      page.drawText(line, { x: 30, y: 360 - i * 20, size: 12, font });
    });
  }
  return pdf.save();
}

/** A real PDF whose page has only a drawn shape: no text layer (like a scan). */
export async function makeTextlessPdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.addPage([400, 400]).drawRectangle({ x: 50, y: 50, width: 100, height: 100 });
  return pdf.save();
}

/** A real .docx (written by the docx package), for the real mammoth parser. */
export async function makeDocx(paragraphs: string[]): Promise<Uint8Array> {
  const doc = new Document({ sections: [{ children: paragraphs.map((text) => new Paragraph(text)) }] });
  return new Uint8Array(await Packer.toBuffer(doc));
}

export const utf8 = (text: string) => new TextEncoder().encode(text);

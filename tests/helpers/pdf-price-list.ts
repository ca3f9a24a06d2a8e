import { PDFDocument, StandardFonts } from "pdf-lib";

export type TPriceList = { prices: Record<string, string>; paymentDays: number };

/**
 * A supplier's price list as a real two-page PDF (written by pdf-lib, read by the real unpdf parser): a table of
 * products and prices on page 1, the payment terms on page 2. `made` sets the creation date and producer, so the
 * same list can be generated again with other metadata (the words unchanged).
 */
export async function makePriceListPdf(list: TPriceList, made = { at: new Date("2026-01-01"), by: "Acme Docs 1.0" }) {
  const pdf = await PDFDocument.create();
  pdf.setCreationDate(made.at);
  pdf.setModificationDate(made.at);
  pdf.setProducer(made.by);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([500, 500]);
  page.drawText("Acme supplier price list", { x: 30, y: 460, size: 14, font });
  Object.entries(list.prices).forEach(([product, price], i) => {
    page.drawText(product, { x: 30, y: 430 - i * 20, size: 12, font });
    page.drawText(price, { x: 300, y: 430 - i * 20, size: 12, font });
  });
  const terms = pdf.addPage([500, 500]);
  terms.drawText("Payment terms", { x: 30, y: 460, size: 14, font });
  terms.drawText(`Invoices are payable within ${list.paymentDays} days of delivery.`, {
    x: 30,
    y: 430,
    size: 12,
    font,
  });
  terms.drawText("Prices exclude VAT.", { x: 30, y: 410, size: 12, font });
  return Buffer.from(await pdf.save()).toString("base64");
}

import { describe, expect, it } from "vitest";
import { formatStructuredDocument } from "@/server/capabilities";
import { findStockLine } from "@/server/capabilities/web-scrape/stock-line";

/** Availability from visible text only in a product context (docs/page-reading.md). */

const page = (main: string, head = "") =>
  formatStructuredDocument(
    `<!doctype html><html><head><title>T</title>${head}</head><body><nav>Shop</nav><main>${main}</main></body></html>`,
    "https://shop.example/p",
  );

describe("stock phrases in prose are not a stock state", () => {
  it.each([
    "Officials said the pumps hired for the winter were temporarily unavailable because of demand elsewhere, and that the older model has been discontinued.",
    "Das Ladenlokal sei derzeit nicht verfügbar, weil der Eigentümer erst ein Gutachten abwarten wolle, sagte ein Sprecher der Stadt am Mittwoch.",
    "Notre moule préféré est malheureusement épuisé chez le fabricant, mais un simple plat à tarte convient très bien pour cette recette.",
    "En las primeras semanas muchas fechas aparecían como no disponible en la web, sobre todo los viernes y los domingos por la tarde.",
  ])("an article sentence: %s", (sentence) => {
    const doc = page(
      `<article><h1>News</h1><p>${sentence}</p><p>It costs about $40 in most shops, the council said on Tuesday evening.</p></article>`,
    );
    expect(doc.availability).toBeNull();
  });

  it("a short stock line with no price or buy button near it is not one either", () => {
    const far = Array.from(
      { length: 6 },
      (_, i) => `<p>Paragraph ${i} of a long story about the harbour and its history.</p>`,
    );
    expect(page(`<h1>Story</h1><p>Out of stock</p>${far.join("")}<p>Tickets from $5</p>`).availability).toBeNull();
  });
});

describe("a product's stock line still is", () => {
  it("a short line next to the price", () => {
    const doc = page(
      `<h1>Desk Lamp</h1><div class="buy-box"><span class="price">$49.90</span><p>Currently unavailable</p></div>`,
    );
    expect(doc.availability).toEqual({ value: "OutOfStock", source: "text", phrase: "currently unavailable" });
  });

  it("a short line next to a buy button (no price in text)", () => {
    const doc = page(`<h1>Lampe</h1><p>Nicht auf Lager</p><button>In den Warenkorb</button>`);
    expect(doc.availability?.value).toBe("OutOfStock");
  });

  it("a short line anywhere on a page whose structured data offers the product", () => {
    const ld = `<script type="application/ld+json">{"@type":"Product","name":"Lamp","offers":{"@type":"Offer","price":"49.90","priceCurrency":"EUR"}}</script>`;
    const filler = Array.from({ length: 8 }, (_, i) => `<p>Feature ${i}: sturdy, bright, adjustable arm.</p>`).join("");
    expect(page(`<h1>Lamp</h1>${filler}<p>Discontinued</p>`, ld).availability?.value).toBe("Discontinued");
  });

  it("findStockLine: the first qualifying line wins; long lines never qualify", () => {
    const text = [
      "This model was discontinued years ago, but the new one is in stock at most dealers in the region, the maker said.",
      "€ 49,90",
      "Auf Lager",
    ].join("\n");
    expect(findStockLine(text, { hasOffer: false })).toEqual({ value: "InStock", phrase: "auf lager" });
    expect(findStockLine(text.split("\n")[0] as string, { hasOffer: true })).toBeNull();
  });
});

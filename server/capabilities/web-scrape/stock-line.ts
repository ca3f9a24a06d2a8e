import { findPrices } from "../../lib/parse-price";
import { findAvailabilityPhrase, type TAvailabilityPhrase } from "./availability";

/**
 * Availability from visible text, only where the page is a product: a stock phrase counts when it stands on a
 * short line of its own ("In stock", "Rupture de stock") next to a price or a buy button, or anywhere short on a
 * page whose structured data offers something. "The pumps were temporarily unavailable" or "the model has been
 * discontinued" inside a paragraph is what an article says, not a stock state (docs/page-reading.md).
 */

/** Longer lines are running text, whatever words they use. */
export const MAX_STOCK_LINE = 100;
/** How far (in lines) a price or a buy button may be from the stock line. */
const NEAR = 4;
/** Only the start of the text is read: stock status sits near the product, related items come later. */
const MAX_SCAN = 20_000;

/** Buy and notify buttons, lowercased (en, de, fr, es, it, nl, pt, pl, sv). */
const BUY =
  /(?<![\p{L}\p{N}])(?:add to (?:cart|basket|bag|trolley)|buy (?:it )?now|notify me|in den (?:warenkorb|einkaufswagen)|jetzt kaufen|ajouter au panier|acheter maintenant|añadir (?:al carrito|a la cesta)|comprar ahora|aggiungi al carrello|in (?:de )?winkelwagen|adicionar ao carrinho|dodaj do koszyka|lägg i varukorgen)(?![\p{L}\p{N}])/u;

const hasPrice = (line: string) => line.length <= 200 && findPrices(line, { limit: 1 }).length > 0;
const hasBuy = (line: string) => line.length <= 200 && BUY.test(line.toLowerCase());

export function findStockLine(mainText: string, options: { hasOffer: boolean }): TAvailabilityPhrase | null {
  const lines = (mainText.length > MAX_SCAN ? mainText.slice(0, MAX_SCAN) : mainText).split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.length > MAX_STOCK_LINE) continue;
    const phrase = findAvailabilityPhrase(line);
    if (!phrase) continue;
    if (options.hasOffer) return phrase;
    for (let j = Math.max(0, i - NEAR); j <= Math.min(lines.length - 1, i + NEAR); j++) {
      const near = lines[j] as string;
      if (hasPrice(near) || hasBuy(near)) return phrase;
    }
  }
  return null;
}

import { findPrices } from "../../lib/parse-price";

/**
 * What each price in a page's main text is, read by meaning (docs/intelligence.md, drafts anchored by meaning):
 * the product's own price, an old price ("was", "UVP", struck through), a promotional amount ("spend
 * over £35", "free shipping over 50 €", "save $20") or a passing mention inside prose ("… costs $40 at
 * most stores …"). The drafter anchors fields to the own price and skips the rest unless asked.
 * Pure and linear: one findPrices pass per line of the structured document's main text.
 */

export type TPriceRole = "own" | "old" | "promo" | "mention";

export type TTextPrice = {
  amount: number;
  currency: string;
  /** The price as the page shows it ("49,90 €"). */
  text: string;
  /** Line of the main text (0-based) and offsets in that line (end exclusive). */
  line: number;
  start: number;
  end: number;
  /** Position among every price in the main text (the document's `prices` order). */
  index: number;
  role: TPriceRole;
  /** Why it is not the own price, in words ("struck through", "after “was”", "promotional: “spend”"). */
  why: string | null;
  /** The words right before the price on its line, after any earlier price ("Team plan", "Price:", "nur"), or "". */
  label: string;
  /** The price right before this one on its line, when only a few characters separate them. */
  after: { text: string; role: TPriceRole } | null;
};

export type TPriceRoleHints = {
  /** Texts of struck-through or old-price elements (`<del>`, `<s>`, `.old-price`…), from the page HTML. */
  oldTexts?: readonly string[];
  /** Texts of elements the page marks as prices (`.price`, `#product-price`…): never a passing mention. */
  priceTexts?: readonly string[];
};

const MAX_LINES = 5_000;
const MAX_PRICES = 200;
/** A line this long is prose: a price inside it is a passing mention, not the product's price. */
export const PROSE_LINE_CHARS = 160;

/** Words right before an old price ("was $20", "UVP 199 €", "statt 49,90 €", "regular price: $30"). */
const OLD_BEFORE =
  /(?:^|[^\p{L}])(was|were|now was|regular(?:ly)?(?: price)?|reg\.?|list price|rrp|msrp|uvp|statt|original(?:ly)?(?: price)?|compare at|before|vorher|früher|ehemals|ancien prix|prix barré|au lieu de|avant|antes|antes era|prima|invece di|era|van|tidigare|ordinarie(?: pris)?|ord\.? pris|przed|zamiast)\s*:?\s*$/iu;
/** Words right after an old price ("199 € UVP", "$30 (regular)"). */
const OLD_AFTER = /^\s*\(?\s*(uvp|rrp|msrp|regular|list price|statt)\b/iu;
/** Words before a promotional amount on the same line ("Spend over £35", "free shipping on orders over $50", "save $20"). */
const PROMO_BEFORE =
  /(?:^|[^\p{L}])(spend|spending|over|above|more than|less than|orders? of|save|saving|savings|shipping|delivery|postage|coupon|voucher|discount|cashback|gift ?card|versandkostenfrei|versand|lieferung|livraison|envío|envio|spedizione|verzending|frete|frakt|rabatt|rabais|descuento|sconto|korting|oszczędzasz|sparen|spare|économisez|ahorra|risparmi)\b[^\d\n]{0,30}$/iu;
/** Words right after a promotional amount ("$20 off", "$5.99 shipping", "10 € Rabatt"). */
const PROMO_AFTER = /^\s*(off|shipping|delivery|postage|discount|rabatt|rabais|descuento|sconto|korting|cashback)\b/iu;
/** Shipping words earlier on the price's line ("Free shipping on orders over $50"). */
const PROMO_LINE =
  /\b(free (shipping|delivery|returns)|shipping|delivery|versandkostenfrei|livraison gratuite|envío gratis|spedizione gratuita|gratis verzending|frete grátis|fri frakt)\b/iu;

/** The words before `start` on the line, back to a sentence or field break or `from`, at most 5 words / 40 chars. */
export function labelBefore(line: string, start: number, from = 0): string {
  const before = line.slice(Math.max(from, start - 80), start);
  const segment = before.split(/[.!?;|•·—–]\s|[|•·]/u).pop() ?? "";
  const words = segment.trim().split(/\s+/).filter(Boolean).slice(-5);
  let label = words.join(" ");
  while (label.length > 40 && words.length > 1) {
    words.shift();
    label = words.join(" ");
  }
  return /\p{L}{2}/u.test(label) ? label.slice(-40) : "";
}

function classify(
  line: string,
  start: number,
  end: number,
  amount: number,
  oldAmounts: Set<number>,
  markedAmounts: Set<number>,
): { role: TPriceRole; why: string | null } {
  const before = line.slice(Math.max(0, start - 60), start);
  const after = line.slice(end, end + 30);
  const old = OLD_BEFORE.exec(before);
  if (old) return { role: "old", why: `after “${old[1]}”` };
  const oldAfter = OLD_AFTER.exec(after);
  if (oldAfter) return { role: "old", why: `before “${oldAfter[1]}”` };
  if (oldAmounts.has(amount)) return { role: "old", why: "struck through / marked as the old price" };
  const promo = PROMO_BEFORE.exec(before);
  if (promo) return { role: "promo", why: `promotional: “${promo[1]}”` };
  const promoAfter = PROMO_AFTER.exec(after);
  if (promoAfter) return { role: "promo", why: `promotional: “${promoAfter[1]}”` };
  const promoLine = PROMO_LINE.exec(line.slice(0, start));
  if (promoLine) return { role: "promo", why: `on a “${promoLine[1]}” line` };
  if (line.length >= PROSE_LINE_CHARS && !markedAmounts.has(amount))
    return { role: "mention", why: "a passing mention in running text" };
  return { role: "own", why: null };
}

/** Amounts shown in old-price elements; an amount also shown as the price of something else still counts. */
function amountsOf(texts: readonly string[]): Set<number> {
  const out = new Set<number>();
  for (const t of texts.slice(0, 100)) for (const p of findPrices(t.slice(0, 500), { limit: 5 })) out.add(p.amount);
  return out;
}

/** Every price in the main text with its role, in page order. */
export function readPriceRoles(mainText: string, hints: TPriceRoleHints = {}): TTextPrice[] {
  const oldAmounts = amountsOf(hints.oldTexts ?? []);
  const markedAmounts = amountsOf(hints.priceTexts ?? []);
  const out: TTextPrice[] = [];
  const lines = mainText.split("\n");
  let index = 0;
  for (let n = 0; n < lines.length && n < MAX_LINES && out.length < MAX_PRICES; n++) {
    const line = lines[n] as string;
    let previous: TTextPrice | null = null;
    for (const p of findPrices(line, { limit: 20 })) {
      const { role, why } = classify(line, p.start, p.end, p.amount, oldAmounts, markedAmounts);
      const gap = previous ? line.slice(previous.end, p.start) : null;
      const price: TTextPrice = {
        amount: p.amount,
        currency: p.currency,
        text: line.slice(p.start, p.end).replace(/\s+/g, " ").trim(),
        line: n,
        start: p.start,
        end: p.end,
        index: index++,
        role,
        why,
        label: labelBefore(line, p.start, previous?.end ?? 0),
        after:
          previous && gap !== null && gap.length <= 12 && !/\d/.test(gap)
            ? { text: previous.text, role: previous.role }
            : null,
      };
      out.push(price);
      previous = price;
    }
  }
  return out;
}

/**
 * The product's own price among the text prices: the first own-role price after the product's heading
 * (the page's h1 / product name) when there is one, else the first own-role price.
 */
export function pickOwnPrice(
  prices: readonly TTextPrice[],
  mainText: string,
  heading: string | null,
): TTextPrice | null {
  const own = prices.filter((p) => p.role === "own");
  if (own.length === 0) return null;
  const at = heading ? headingLine(mainText, heading) : -1;
  return (at >= 0 ? own.find((p) => p.line > at) : undefined) ?? (own[0] as TTextPrice);
}

/** The index of the main-text line that is the heading, or -1. */
export function headingLine(mainText: string, heading: string): number {
  const want = heading.replace(/\s+/g, " ").trim();
  if (!want) return -1;
  const lines = mainText.split("\n");
  for (let i = 0; i < lines.length && i < MAX_LINES; i++) if (lines[i] === want) return i;
  return -1;
}

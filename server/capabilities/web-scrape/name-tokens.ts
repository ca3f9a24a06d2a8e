/**
 * Does a class or id name a word — as a word, not as letters inside another? `[id*="preco" i]` takes
 * `id="precontent"` and `[class*="cena" i]` takes `class="scena"`; pages name their price elements
 * `preco`, `product-preco`, `preco_final`, `finalPrice`, `verkaufspreis`, `prices`, `price-box`.
 * A name is split into tokens at every non-letter/digit and at lower→upper case steps; a token names the
 * word when it is the word, the word with a usual suffix ("prices", "pricebox"), or — for words of five
 * letters or more — a compound that ends in it ("saleprice", "angebotspreis") (docs/page-reading.md).
 */

/** What may follow the word inside one token: plurals and the parts of a price element's name. */
const SUFFIXES = new Set([
  "s",
  "es",
  "ing",
  "box",
  "tag",
  "label",
  "value",
  "amount",
  "wrap",
  "wrapper",
  "container",
  "block",
  "area",
  "info",
  "text",
  "now",
  "current",
  "final",
  "new",
  "sale",
]);

const MIN_COMPOUND = 5;

/** "product-preco precoFinal" → ["product", "preco", "preco", "final"], lowercase. */
export function nameTokens(name: string): string[] {
  return name
    .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

export function namesWord(name: string, word: string): boolean {
  const w = word.toLowerCase();
  if (!w) return false;
  for (const token of nameTokens(name)) {
    if (token === w) return true;
    const rest = token.slice(w.length);
    // "price2", "prices", "pricebox": the word, then a number or a usual suffix.
    if (token.startsWith(w) && (SUFFIXES.has(rest) || /^\d+$/.test(rest))) return true;
    if (w.length >= MIN_COMPOUND && token.endsWith(w)) return true;
  }
  return false;
}

/** The words of a `:name-token(price, preis)` argument. */
export function wordsOf(argument: string | null | undefined): string[] {
  return (argument ?? "")
    .split(/[\s,]+/)
    .map((w) => w.replace(/^["']|["']$/g, ""))
    .filter(Boolean);
}

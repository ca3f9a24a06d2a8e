import { describe, expect, it } from "vitest";
import { answerCssQueries, isValidCssSelector } from "@/server/capabilities/web-scrape/css-query";
import { buildHtmlTree } from "@/server/capabilities/web-scrape/html-tree";
import { namesWord, nameTokens } from "@/server/capabilities/web-scrape/name-tokens";

/** Class and id names matched by word, not by letters inside another word (docs/page-reading.md). */

describe("namesWord", () => {
  it.each([
    ["preco", "preco"],
    ["product-preco", "preco"],
    ["preco_final", "preco"],
    ["precoFinal", "preco"],
    ["product__price--old", "price"],
    ["prices", "price"],
    ["pricebox", "price"],
    ["saleprice", "price"],
    ["finalPrice", "price"],
    ["angebotspreis", "preis"],
    ["cena-produktu", "cena"],
    ["PRICE", "price"],
    ["price2", "price"],
  ])("%s names %s", (name, word) => expect(namesWord(name, word)).toBe(true));

  it.each([
    ["precontent", "preco"],
    ["precontent-banner", "preco"],
    ["scena", "cena"],
    ["pretty-box", "pret"],
    ["interpret", "pret"],
    ["grandprix", "prix"],
    ["priceless-moments", "price"],
    ["hintatieto", "hinta"],
    ["price2go", "price"],
  ])("%s does not name %s", (name, word) => expect(namesWord(name, word)).toBe(false));

  it("splits at separators and case steps", () => {
    expect(nameTokens("product-preco precoFinal_x")).toEqual(["product", "preco", "preco", "final", "x"]);
  });
});

describe(":name-token() in CSS queries", () => {
  const tree = buildHtmlTree(`<main>
<div id="precontent"><p>Breaking: markets open higher</p></div>
<p class="scena">Act one</p>
<span class="product-preco">R$ 49,90</span>
<span id="preco_final">R$ 44,90</span>
<span class="finalPrice">$12</span>
</main>`);

  it("takes names that say the word and leaves the ones that only contain its letters", () => {
    const q = { selector: ":name-token(preco, cena, price)", all: true };
    expect(isValidCssSelector(q.selector)).toBe(true);
    const answer = answerCssQueries(tree, [q])[`all||${q.selector}`];
    expect(answer).toEqual({ ok: true, values: ["R$ 49,90", "R$ 44,90", "$12"] });
  });

  it("the substring selector it replaces takes the unrelated ones", () => {
    const q = { selector: '[id*="preco" i], [class*="cena" i]', all: true };
    const answer = answerCssQueries(tree, [q])[`all||${q.selector}`];
    expect(answer?.ok && answer.values).toEqual(["Breaking: markets open higher", "Act one", "R$ 44,90"]);
  });
});

import { afterAll, describe, expect, it } from "vitest";
import { answerCssInWorker, closePageWorkers, DEFAULT_PAGE_LIMITS } from "@/server/capabilities";
import { readPriceCssFacts } from "@/server/intelligence/setup/probe-price-css";

/**
 * The drafter's probe for price-marked elements asks the page worker by word (docs/page-reading.md): an element whose
 * id is `precontent` or whose class is `scena` is not a price element (`[id*="preco" i]` and `[class*="cena" i]` took
 * them); `preco_final`, `product-preco` and `price2` are.
 */

afterAll(async () => {
  await closePageWorkers();
});

describe("the drafter's price-element probe", () => {
  it("takes names that say a price word and leaves the ones that only contain its letters", async () => {
    const html = `<main>
<div id="precontent"><p>Breaking: markets open higher at 10:00</p></div>
<p class="scena">Act one, scene 2</p>
<span class="product-preco">R$ 49,90</span>
<span id="preco_final">R$ 44,90</span>
<b class="price2">R$ 39,90</b>
</main>`;
    const facts = await readPriceCssFacts((queries) => answerCssInWorker(html, queries, DEFAULT_PAGE_LIMITS));
    expect(facts.priceElements.map((e) => e.text)).toEqual(["R$ 49,90", "R$ 44,90", "R$ 39,90"]);
  });
});

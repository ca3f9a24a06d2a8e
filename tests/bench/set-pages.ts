import type { TListingPlan } from "@/contracts/definition/listing-plan";
import type { TFixtureSite } from "../fixtures/site/site";

/**
 * The set benchmark's fixture (set.bench.ts, both sections): a listing page of N product cards and one page per
 * product, served by the fixture site, and the two definitions compared — the listing watched as one set, and one
 * product page watched by a single tracker. Every render carries a fresh script nonce, so an unchanged page is
 * byte-different and must still hash the same.
 */

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export const LISTING_PATH = "/bench-set/listing";
export const productPath = (i: number) => `/bench-set/p/${i}`;

export function listingPage(prices: readonly number[]): string {
  const cards = prices
    .map(
      (p, i) =>
        `<div class="product-card"><h3 class="product-title"><a href="${productPath(i)}">Product ${i}</a></h3><span class="price">${usd(p)}</span></div>`,
    )
    .join("");
  return `<!doctype html><html><head><title>Catalogue</title></head><body><main><h1>All products</h1><div class="grid">${cards}</div></main><script nonce="${Math.random()}">x</script></body></html>`;
}

export const productPage = (i: number, cents: number) =>
  `<!doctype html><html><head><title>Product ${i}</title></head><body><main><h1>Product ${i}</h1><span id="price">${usd(cents)}</span></main><script nonce="${Math.random()}">x</script></body></html>`;

/** The starting prices in cents: product i costs $10.00 + i × $0.10. */
export const startPrices = (n: number) => Array.from({ length: n }, (_, i) => 1000 + i * 10);

/** Serves the listing and every product page again (byte-different: new nonces), with the prices given. */
export function serveAll(site: TFixtureSite, prices: readonly number[]): void {
  site.setPage(LISTING_PATH, { body: listingPage(prices) });
  prices.forEach((p, i) => void site.setPage(productPath(i), { body: productPage(i, p) }));
}

/** Drops product `i`'s price by 20 % (material on both sides: the rules are 5 %) on the listing and on its page. */
export function dropPrice(site: TFixtureSite, prices: number[], i: number): void {
  prices[i] = Math.round((prices[i] as number) * 0.8);
  site.setPage(LISTING_PATH, { body: listingPage(prices) });
  site.setPage(productPath(i), { body: productPage(i, prices[i] as number) });
}

/** One product page: its price by CSS, material at 5 %. */
export const SINGLE_DEFINITION = {
  fields: [
    {
      name: "price",
      type: "money",
      currency: "USD",
      description: "Price",
      extractor: { kind: "css", selector: "#price" },
    },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

/**
 * The listing as a set (docs/sets.md): the web.scrape input with the detected plan (one page), and a definition
 * whose fields read each member's values by JSON pointer, money fields material at 5 %, new and gone members material.
 */
export function setTrackerInput(listingUrl: string, plan: TListingPlan, n: number) {
  return {
    capabilityInput: { url: listingUrl, listing: { ...plan, maxPages: 1 } },
    definition: {
      fields: plan.fields.map((f) =>
        f.type === "money"
          ? {
              name: f.name,
              type: "money",
              currency: "USD",
              description: f.name,
              extractor: { kind: "json_pointer", pointer: `/${f.name}` },
            }
          : {
              name: f.name,
              type: "string",
              description: f.name,
              extractor: { kind: "json_pointer", pointer: `/${f.name}` },
            },
      ),
      identityRule: { kind: "canonical_url" },
      materiality: Object.fromEntries(
        plan.fields.map((f) => [f.name, f.type === "money" ? { kind: "numeric", relative: 0.05 } : { kind: "ignore" }]),
      ),
      set: { missingAfter: 2, maxEntities: Math.max(200, n), rules: [{ kind: "appeared" }, { kind: "disappeared" }] },
    },
  };
}

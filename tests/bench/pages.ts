import { seededRandom } from "./stats";

/**
 * Realistic product pages for benchmarks: 20–50 KB of HTML with navigation, a price, a rating,
 * feature lists, long copy, reviews, JSON-LD and the volatile noise real sites serve (script nonces,
 * build stamps, tracking parameters on links). Each render gets fresh noise, so "unchanged" pages are
 * byte-different but must hash the same.
 */

const WORDS = (
  "acme widget pro plan team seats storage support uptime export import integration dashboard report " +
  "analytics workflow automation secure single sign-on audit history backup restore region latency " +
  "throughput onboarding migration customers enterprise starter business annual monthly invoice billing " +
  "trial upgrade downgrade cancel refund policy terms privacy compliance certified partner network api " +
  "webhook limit quota usage overage discount bundle add-on feature roadmap release beta stable fast " +
  "reliable simple flexible powerful modern classic premium standard basic advanced custom dedicated " +
  "shared managed hosted cloud on-premise hybrid mobile desktop browser plugin extension template theme"
).split(" ");

export const RATINGS = [3.8, 4.0, 4.2, 4.4, 4.6, 4.8] as const;

export type TBenchPage = {
  path: string;
  /** Current price in USD (the extractor field). */
  price: number;
  /** Stable per page (the model-filled field). */
  rating: number;
  /** The page with {{NONCE}}, {{BUILD}}, {{PRICE}}, {{PRICE_NUM}} placeholders. */
  template: string;
};

function sentence(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)] as string);
  const text = out.join(" ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function paragraph(rand: () => number): string {
  const sentences = 3 + Math.floor(rand() * 5);
  return Array.from({ length: sentences }, () => sentence(rand, 8 + Math.floor(rand() * 12))).join(" ");
}

/** Builds page `index` with a target size between minKb and maxKb (deterministic for a seed). */
export function makeBenchPage(index: number, seed: number, sizeKb: { min: number; max: number }): TBenchPage {
  const rand = seededRandom(seed * 7919 + index);
  const path = `/products/${index}`;
  const price = Math.round((9 + rand() * 190) * 100) / 100;
  const rating = RATINGS[Math.floor(rand() * RATINGS.length)] as number;
  const reviews = 50 + Math.floor(rand() * 5000);
  const targetBytes = Math.round((sizeKb.min + rand() * (sizeKb.max - sizeKb.min)) * 1024);
  const name = `Acme Widget ${index}`;

  const nav = ["Home", "Products", "Pricing", "Docs", "Blog", "Support", "Careers", "Contact"]
    .map((label) => `<li><a href="/${label.toLowerCase()}?utm_source=nav&amp;utm_medium=site">${label}</a></li>`)
    .join("");
  const features = Array.from({ length: 12 }, () => `<li>${sentence(rand, 5 + Math.floor(rand() * 6))}</li>`).join("");
  const head = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>${name} – pricing and plans</title>
<meta name="description" content="${name}: plans, prices and what customers say.">
<link rel="canonical" href="${path}">
<meta name="generated-at" content="{{BUILD}}">
<link rel="stylesheet" href="/assets/site.css?v={{BUILD}}">
<script nonce="{{NONCE}}">window.__BUILD__ = "{{BUILD}}"; window.__CSRF__ = "{{NONCE}}";</script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"${name}","aggregateRating":{"@type":"AggregateRating","ratingValue":"${rating.toFixed(1)}","reviewCount":"${reviews}"},"offers":{"@type":"Offer","price":"{{PRICE_NUM}}","priceCurrency":"USD"}}</script>
</head><body>
<header><nav><ul>${nav}</ul></nav></header>
<main>
<h1>${name}</h1>
<section class="pricing"><h2>Pricing</h2>
<p class="price">Pro plan <span id="price">{{PRICE}}</span> per month, billed monthly.</p>
<p class="rating">Rated <b id="rating">${rating.toFixed(1)}</b> out of 5 by ${reviews.toLocaleString("en-US")} customers.</p>
</section>
<section class="features"><h2>Features</h2><ul>${features}</ul></section>
<section class="details"><h2>Details</h2>
`;
  const tail = `</section>
</main>
<footer><p>© Acme Inc. All rights reserved.</p><p><a href="/privacy?ref=footer&amp;gclid=abc123">Privacy</a></p>
<script nonce="{{NONCE}}">(function(){var t="{{NONCE}}";window.dataLayer=window.dataLayer||[];window.dataLayer.push({t:t,b:"{{BUILD}}"});})();</script>
</footer></body></html>
`;
  const blocks: string[] = [];
  let size = head.length + tail.length;
  let review = 0;
  while (size < targetBytes) {
    const block =
      rand() < 0.2
        ? `<blockquote class="review"><p>${paragraph(rand)}</p><cite>Customer ${++review}</cite></blockquote>\n`
        : rand() < 0.15
          ? `<h3>${sentence(rand, 3 + Math.floor(rand() * 3))}</h3>\n<p>${paragraph(rand)}</p>\n`
          : `<p>${paragraph(rand)}</p>\n`;
    blocks.push(block);
    size += block.length;
  }
  return { path, price, rating, template: head + blocks.join("") + tail };
}

let renders = 0;

/** The page as served now: same content, fresh volatile noise. */
export function renderBenchPage(page: TBenchPage): string {
  renders++;
  const nonce = `${renders.toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  const build = `${Date.now()}-${renders}`;
  return page.template
    .replaceAll("{{NONCE}}", nonce)
    .replaceAll("{{BUILD}}", build)
    .replaceAll("{{PRICE_NUM}}", page.price.toFixed(2))
    .replaceAll("{{PRICE}}", `$${page.price.toFixed(2)}`);
}

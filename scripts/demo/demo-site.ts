import http from "node:http";

/**
 * The demo's local website: a few pages whose content moves one step per "tick" (prices, ratings,
 * stock, reworded copy), deterministic so every demo tells the same story. No network needed.
 */

type TStep = {
  price: number;
  plan: string;
  rating: number;
  reviews: number;
  stock: string;
  units: number;
  tagline: string;
};

const STORY: TStep[] = [
  {
    price: 49,
    plan: "Pro",
    rating: 4.5,
    reviews: 312,
    stock: "In stock",
    units: 40,
    tagline: "The friendly CRM for small teams.",
  },
  {
    price: 49,
    plan: "Pro",
    rating: 4.4,
    reviews: 318,
    stock: "In stock",
    units: 31,
    tagline: "The friendly CRM for small teams.",
  },
  {
    price: 44,
    plan: "Pro",
    rating: 4.4,
    reviews: 340,
    stock: "In stock",
    units: 12,
    tagline: "The friendly CRM for small teams.",
  },
  {
    price: 44,
    plan: "Pro",
    rating: 4.5,
    reviews: 351,
    stock: "Low stock",
    units: 3,
    tagline: "The friendly CRM for small teams.",
  },
  {
    price: 44,
    plan: "Pro",
    rating: 4.1,
    reviews: 470,
    stock: "Out of stock",
    units: 0,
    tagline: "The CRM built for growing companies.",
  },
  {
    price: 39,
    plan: "Pro",
    rating: 4.0,
    reviews: 502,
    stock: "Out of stock",
    units: 0,
    tagline: "The CRM built for growing companies.",
  },
  {
    price: 39,
    plan: "Pro",
    rating: 4.2,
    reviews: 530,
    stock: "In stock",
    units: 25,
    tagline: "The CRM built for growing companies.",
  },
  {
    price: 45,
    plan: "Pro",
    rating: 4.3,
    reviews: 561,
    stock: "In stock",
    units: 22,
    tagline: "The CRM built for growing companies — now with AI.",
  },
];

export function demoStep(tick: number): TStep {
  return STORY[tick % STORY.length] as TStep;
}

const layout = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>${body}</main></body></html>`;

export function renderDemoPage(path: string, tick: number): string | null {
  const s = demoStep(tick);
  switch (path) {
    case "/":
      return layout(
        "Acme CRM (demo site)",
        `<h1>Acme CRM</h1><p id="tagline">${s.tagline}</p><ul><li><a href="/pricing">Pricing</a></li><li><a href="/reviews">Reviews</a></li><li><a href="/store/widget">Widget store</a></li></ul><p>Demo tick ${tick}.</p>`,
      );
    case "/pricing":
      return layout(
        "Acme CRM pricing",
        `<h1>Pricing</h1><section><h2 id="plan">${s.plan}</h2><p>USD <span id="price">${s.price}.00</span> per seat / month</p></section>`,
      );
    case "/reviews":
      return layout(
        "Acme CRM reviews",
        `<h1>What customers say</h1><p>Average rating <b id="rating">${s.rating.toFixed(1)}</b> from <span id="reviews">${s.reviews}</span> reviews.</p>`,
      );
    case "/store/widget":
      return layout(
        "Widget — Acme store",
        `<h1>Widget</h1><p>Status: <span id="stock">${s.stock}</span></p><p><span id="units">${s.units}</span> units left</p>`,
      );
    default:
      return null;
  }
}

export type TDemoSite = { url: string; tick: () => number; advance: () => number; close: () => Promise<void> };

export async function startDemoSite(port: number): Promise<TDemoSite> {
  let tick = 0;
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://demo").pathname;
    const html = renderDemoPage(path, tick);
    res.writeHead(html ? 200 : 404, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(html ?? "Not found");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const actualPort = address && typeof address === "object" ? address.port : port;
  return {
    url: `http://127.0.0.1:${actualPort}`,
    tick: () => tick,
    advance: () => ++tick,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

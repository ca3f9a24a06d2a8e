import { lookup } from "node:dns/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createMemoryLedger,
  executeCapability,
  hashStructuredDocument,
  makeCapabilityConfig,
  type TCapabilityConfig,
  type TCapabilityEnvelope,
  type TFetchConfig,
  type TWebScrapeOutput,
} from "@/server/capabilities";
import { startFixtureSite, type TFixtureSite } from "@/tests/fixtures/site/site";

let site: TFixtureSite;
let host: string; // "127.0.0.1:<port>"

beforeAll(async () => {
  site = await startFixtureSite();
  host = new URL(site.url).host;
});
afterAll(async () => {
  await site.close();
});
beforeEach(() => site.reset());

function config(fetch: Partial<TFetchConfig> = {}): TCapabilityConfig {
  return makeCapabilityConfig({
    fetch: { allowHosts: [host], timeoutMs: 3_000, headersTimeoutMs: 2_000, maxBytes: 200_000, ...fetch },
  });
}

async function scrape(url: string, cfg = config(), extra: { signal?: AbortSignal } = {}) {
  return (await executeCapability(
    "web.scrape",
    { url },
    { config: cfg, ...extra },
  )) as TCapabilityEnvelope<TWebScrapeOutput>;
}

async function scrapeOk(url: string, cfg = config()): Promise<TWebScrapeOutput> {
  const env = await scrape(url, cfg);
  expect(env.error).toBeUndefined();
  expect(env.status).toBe("completed");
  return env.results as TWebScrapeOutput;
}

const hashOf = (out: TWebScrapeOutput) => hashStructuredDocument(out.document, "v1");

/** A product page whose volatile parts vary with `seed`; `price` is the only visible content knob. */
function productPage(o: { seed: number; price?: string; spacing?: string; swapAttrs?: boolean }): string {
  const s = o.spacing ?? "";
  const price = o.price ?? "$1,299.00";
  const attrs = o.swapAttrs ? `data-id="p1" class="price"` : `class="price" data-id="p1"`;
  return `<!doctype html>
<html lang="en"><head>
  <title>${s}Acme  Widget Pro${s}</title>
  <meta name="csrf-token" content="tok-${o.seed}">
  <meta property="article:modified_time" content="2024-05-0${(o.seed % 9) + 1}T10:00:0${o.seed % 10}Z">
  <meta name="build-id" content="build-${o.seed}">
  <link rel="canonical" href="${site.url}/product?utm_source=news${o.seed}&amp;gclid=g${o.seed}&amp;fbclid=f${o.seed}">
  <script nonce="n-${o.seed}">window.__BUILD__="${o.seed}"; window.__TS__=${Date.now() + o.seed};</script>
  <script id="__NEXT_DATA__" type="application/json">{"buildId":"b${o.seed}","props":{}}</script>
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Acme Widget Pro",
    "offers":{"@type":"Offer","price":"${price.replace(/[^0-9.]/g, "")}","priceCurrency":"USD","url":"${site.url}/product?ref=r${o.seed}"}}</script>
  <style nonce="n-${o.seed}">.price{color:red}</style>
</head><body>
  <nav><a href="/?utm_campaign=c${o.seed}">Home</a></nav>
  <!-- rendered at ${o.seed} -->
  <main>${s}
    <h1>Acme   Widget ${s}Pro</h1>
    <p ${attrs}>Now ${price}${s}</p>
    <form><input type="hidden" name="csrf" value="tok-${o.seed}"><button>Add to cart</button></form>
    <div hidden>debug ${o.seed}</div>
  </main>
  <footer>Rendered in ${o.seed} ms</footer>
</body></html>`;
}

describe("web.scrape against the fixture site", () => {
  it("fetches and formats a page, with a clear user agent", async () => {
    site.setPage("/product", { body: productPage({ seed: 1 }) });
    const out = await scrapeOk(site.urlFor("/product"));
    expect(out.finalUrl).toBe(site.urlFor("/product"));
    expect(out.status).toBe(200);
    expect(out.contentType).toBe("text/html");
    expect(out.document.title).toBe("Acme Widget Pro");
    expect(out.document.canonicalUrl).toBe(site.urlFor("/product"));
    expect(out.document.headings).toEqual(["Acme Widget Pro"]);
    expect(out.document.mainText).toBe("Acme Widget Pro\nNow $1,299.00\nAdd to cart");
    expect(out.document.prices).toEqual([{ amount: 1299, currency: "USD", text: "$1,299.00" }]);
    expect(out.document.jsonLd[0]).toMatchObject({ "@type": "Product", offers: { price: "1299.00" } });
    expect(out.html).toContain("<main>");
    expect(site.requests[0]?.headers["user-agent"]).toMatch(/^BellwetherBot\/0\.1 \(\+https:\/\/github\.com\//);
  });

  it("hashes identically across whitespace, nonces, tracking parameters, attribute order, comments and meta timestamps", async () => {
    site.setPage("/product", { body: productPage({ seed: 1 }) });
    const a = await scrapeOk(site.urlFor("/product"));
    site.setPage("/product", { body: productPage({ seed: 7, spacing: "\n   \t ", swapAttrs: true }) });
    const b = await scrapeOk(site.urlFor("/product?utm_source=mail&utm_medium=email&mc_eid=abc"));
    expect(b.document).toEqual(a.document);
    expect(hashOf(b)).toBe(hashOf(a));
    // The volatile parts really did differ on the wire.
    expect(b.html).not.toBe(a.html);
  });

  it("changes the hash when a visible price changes", async () => {
    site.setPage("/product", { body: productPage({ seed: 1, price: "$1,299.00" }) });
    const a = await scrapeOk(site.urlFor("/product"));
    site.setPage("/product", { body: productPage({ seed: 1, price: "$1,199.00" }) });
    const b = await scrapeOk(site.urlFor("/product"));
    expect(b.document.prices[0]?.amount).toBe(1199);
    expect(hashOf(b)).not.toBe(hashOf(a));
  });

  it("reads JSON endpoints; reordered keys and request-scoped keys do not change the hash", async () => {
    site.setJson("/api/stock", {
      sku: "W-1",
      price: { amount: 12.5, currency: "EUR" },
      inStock: true,
      requestId: "r1",
      generatedAt: "2024-01-01T00:00:00Z",
    });
    const a = await scrapeOk(site.urlFor("/api/stock"));
    expect(a.document.kind).toBe("json");
    expect(a.json).toMatchObject({ sku: "W-1", requestId: "r1" }); // raw JSON for extractors
    expect(a.document.json).toEqual({ sku: "W-1", price: { amount: 12.5, currency: "EUR" }, inStock: true });
    site.setJson("/api/stock", {
      generatedAt: "2024-06-01T00:00:00Z",
      inStock: true,
      price: { currency: "EUR", amount: 12.5 },
      requestId: "r2",
      sku: "W-1",
    });
    const b = await scrapeOk(site.urlFor("/api/stock"));
    expect(hashOf(b)).toBe(hashOf(a));
    site.setJson("/api/stock", { sku: "W-1", price: { amount: 12.5, currency: "EUR" }, inStock: false });
    expect(hashOf(await scrapeOk(site.urlFor("/api/stock")))).not.toBe(hashOf(a));
  });

  it("with a hash salt, returns the pre-check's hash computed in the page worker: the same as hashing the document here", async () => {
    site.setPage("/product", { body: productPage({ seed: 1 }) });
    site.setJson("/api/stock", { sku: "W-1", price: { amount: 12.5, currency: "EUR" }, requestId: "r1" });
    site.setPage("/notes.txt", { body: "Price: €9,90", contentType: "text/plain; charset=utf-8" });
    const seen = new Set<string>();
    for (const path of ["/product", "/api/stock", "/notes.txt"]) {
      for (const salt of ["tracker-a:v1", "tracker-a:v2"]) {
        const env = (await executeCapability(
          "web.scrape",
          { url: site.urlFor(path) },
          { config: config(), hashSalt: salt },
        )) as TCapabilityEnvelope<TWebScrapeOutput>;
        const out = env.results as TWebScrapeOutput;
        expect(out.contentHash, `${path} ${salt}`).toBe(hashStructuredDocument(out.document, salt));
        seen.add(out.contentHash as string);
      }
    }
    // Every page and every salt (definition version) is its own hash.
    expect(seen.size).toBe(6);
    // Without a salt nothing is hashed there (callers that never pre-check pay nothing for it).
    expect((await scrapeOk(site.urlFor("/product"))).contentHash).toBeUndefined();
  });

  it("reads plain text", async () => {
    site.setPage("/robots.txt", { body: "Price:   €9,90\n\n  in stock  ", contentType: "text/plain; charset=utf-8" });
    const out = await scrapeOk(site.urlFor("/robots.txt"));
    expect(out.document.kind).toBe("text");
    expect(out.document.mainText).toBe("Price: €9,90\nin stock");
    expect(out.document.prices).toEqual([{ amount: 9.9, currency: "EUR", text: "€9,90" }]);
  });

  it("follows redirects within the allowed host and reports the final URL", async () => {
    site.setPage("/old", { redirectTo: "/new", status: 301 });
    site.setPage("/new", { body: "<title>New</title><p>moved</p>" });
    const out = await scrapeOk(site.urlFor("/old"));
    expect(out.url).toBe(site.urlFor("/old"));
    expect(out.finalUrl).toBe(site.urlFor("/new"));
    expect(out.document.title).toBe("New");
  });
});

describe("web.scrape failures are failed envelopes with readable errors", () => {
  async function expectFailure(env: TCapabilityEnvelope<unknown>, code: string, message: RegExp, retryable = false) {
    expect(env.status).toBe("failed");
    expect(env.results).toBeUndefined();
    expect(env.error?.code).toBe(code);
    expect(env.error?.message).toMatch(message);
    expect(env.error?.retryable).toBe(retryable);
  }

  it("blocks the local fixture site when its host is not allowed, before connecting", async () => {
    site.setPage("/p", { body: "<p>hi</p>" });
    const env = await scrape(site.urlFor("/p"), config({ allowHosts: [] }));
    await expectFailure(
      env,
      "BLOCKED_ADDRESS",
      /^Refusing to fetch http:\/\/127\.0\.0\.1:\d+\/p: loopback addresses are blocked\. Allow the host with FETCH_ALLOW_HOSTS if this is intentional\.$/,
    );
    expect(site.requests).toHaveLength(0);
  });

  it("allows a host listed without its port too", async () => {
    site.setPage("/p", { body: "<p>hi</p>" });
    expect((await scrape(site.urlFor("/p"), config({ allowHosts: ["127.0.0.1"] }))).status).toBe("completed");
    expect((await scrape(site.urlFor("/p"), config({ allowHosts: ["127.0.0.1:1"] }))).status).toBe("failed");
  });

  it.each([
    ["http://10.0.0.5/", "private network addresses"],
    ["http://169.254.169.254/latest/meta-data/", "link-local addresses"],
    ["http://100.64.0.1/", "carrier-grade NAT \\(shared\\) addresses"],
    ["http://[::1]:9/", "loopback addresses"],
    ["http://[::ffff:10.0.0.1]/", "private network addresses"],
    ["http://[fd12::1]/", "unique-local \\(private IPv6\\) addresses"],
    ["http://0.0.0.0:9/", "unspecified addresses"],
    ["http://2130706433/", "loopback addresses"], // 127.0.0.1 as a decimal integer
    ["http://localhost:9/", "localhost is a loopback address"],
  ])("blocks %s with a clear error", async (url, phrase) => {
    const env = await scrape(url, config({ allowHosts: [], timeoutMs: 500 }));
    await expectFailure(
      env,
      "BLOCKED_ADDRESS",
      new RegExp(`^Refusing to fetch .+: ${phrase}.* Allow the host with FETCH_ALLOW_HOSTS`),
    );
  });

  it("gives exactly the documented message for a private literal", async () => {
    const env = await scrape("http://10.0.0.5/", config({ allowHosts: [] }));
    expect(env.error?.message).toBe(
      "Refusing to fetch http://10.0.0.5/: private network addresses are blocked. Allow the host with FETCH_ALLOW_HOSTS if this is intentional.",
    );
  });

  it("validates resolved addresses at connect time (DNS rebinding), every address of the answer", async () => {
    site.setPage("/p", { body: "<p>hi</p>" });
    const port = new URL(site.url).port;
    const calls: string[] = [];
    const resolve = async (h: string) => {
      calls.push(h);
      return h === "mixed.example"
        ? [
            { address: "93.184.216.34", family: 4 },
            { address: "127.0.0.1", family: 4 },
          ]
        : [{ address: "127.0.0.1", family: 4 }];
    };
    const rebind = await scrape(`http://rebind.example:${port}/p`, config({ allowHosts: [], resolve }));
    await expectFailure(
      rebind,
      "BLOCKED_ADDRESS",
      /rebind\.example resolves to 127\.0\.0\.1, and loopback addresses are blocked/,
    );
    const mixed = await scrape(`http://mixed.example:${port}/p`, config({ allowHosts: [], resolve }));
    await expectFailure(mixed, "BLOCKED_ADDRESS", /mixed\.example resolves to 127\.0\.0\.1/);
    expect(calls).toEqual(["rebind.example", "mixed.example"]);
    expect(site.requests).toHaveLength(0);
  });

  it("blocks a real hostname that resolves to loopback through the system resolver", async (ctx) => {
    // Uses this machine's own name (from /etc/hosts on most CI images); skipped if it is not loopback.
    const name = hostname().toLowerCase();
    const resolved = await lookup(name).catch(() => undefined);
    if (!resolved?.address.startsWith("127.")) ctx.skip();
    const env = await scrape(`http://${name}:${site.port}/p`, config({ allowHosts: [] }));
    await expectFailure(env, "BLOCKED_ADDRESS", new RegExp(`${name} resolves to 127\\.`));
    expect(site.requests).toHaveLength(0);
  });

  it("blocks a redirect from an allowed host to a private or non-allowed one", async () => {
    site.setPage("/to-private", { redirectTo: "http://10.0.0.5/admin" });
    const env = await scrape(site.urlFor("/to-private"));
    await expectFailure(
      env,
      "BLOCKED_ADDRESS",
      /^Refusing to fetch http:\/\/10\.0\.0\.5\/admin \(redirected from http:\/\/127\.0\.0\.1:\d+\/to-private\): private network addresses are blocked/,
    );
    // Same server under another name is a different, non-allowed host.
    site.setPage("/to-localhost", { redirectTo: `http://localhost:${site.port}/secret` });
    site.setPage("/secret", { body: "<p>secret</p>" });
    await expectFailure(
      await scrape(site.urlFor("/to-localhost")),
      "BLOCKED_ADDRESS",
      /localhost is a loopback address/,
    );
    expect(site.hits("/secret")).toBe(0);
  });

  it("refuses non-web redirect targets and non-web URLs", async () => {
    site.setPage("/to-file", { redirectTo: "file:///etc/passwd" });
    await expectFailure(
      await scrape(site.urlFor("/to-file")),
      "UNSUPPORTED_URL",
      /redirected to file:\/\/\/etc\/passwd, which is not an http\(s\) address/,
    );
    await expectFailure(
      await scrape("ftp://example.com/x"),
      "INVALID_INPUT",
      /Only http:\/\/ and https:\/\/ pages can be watched/,
    );
    await expectFailure(
      await scrape("not a url"),
      "INVALID_INPUT",
      /^Invalid input for web\.scrape: url: Enter a full web address/,
    );
  });

  it("stops an oversized page announced by Content-Length", async () => {
    site.setPage("/huge", { hugeBytes: 5_000_000 });
    const env = await scrape(site.urlFor("/huge"), config({ maxBytes: 100_000 }));
    await expectFailure(
      env,
      "TOO_LARGE",
      /is larger than the 0\.1 MB limit \(5\.0 MB\)\. Track a smaller page, or raise FETCH_MAX_BYTES\./,
    );
  });

  it("stops an oversized chunked page while streaming", async () => {
    site.setPage("/huge", { hugeBytes: 50_000_000, omitContentLength: true });
    const started = Date.now();
    const env = await scrape(site.urlFor("/huge"), config({ maxBytes: 100_000 }));
    await expectFailure(env, "TOO_LARGE", /is larger than the 0\.1 MB limit/);
    expect(Date.now() - started).toBeLessThan(2_000); // aborted early, did not download 50 MB
  });

  it("refuses non-page content types without reading them", async () => {
    site.setPage("/file.pdf", { body: "%PDF-1.7", contentType: "application/pdf" });
    const env = await scrape(site.urlFor("/file.pdf"));
    await expectFailure(env, "UNSUPPORTED_CONTENT_TYPE", /not a web page \(application\/pdf\)/);
    site.setPage("/img", { body: "GIF89a", contentType: "image/gif" });
    await expectFailure(await scrape(site.urlFor("/img")), "UNSUPPORTED_CONTENT_TYPE", /not a web page \(image\/gif\)/);
  });

  it("detects redirect loops", async () => {
    site.setPage("/a", { redirectTo: "/b" });
    site.setPage("/b", { redirectTo: "/a" });
    const env = await scrape(site.urlFor("/a"));
    await expectFailure(
      env,
      "REDIRECT_LOOP",
      /^The page redirects in a loop \(http:\/\/127\.0\.0\.1:\d+\/a → .*\/b → .*\/a\)/,
    );
    expect(site.requests).toHaveLength(2);
  });

  it("caps the number of redirects", async () => {
    for (let i = 0; i < 5; i++) site.setPage(`/r${i}`, { redirectTo: `/r${i + 1}` });
    site.setPage("/r5", { body: "<p>end</p>" });
    await expectFailure(
      await scrape(site.urlFor("/r0"), config({ maxRedirects: 3 })),
      "TOO_MANY_REDIRECTS",
      /redirected more than 3 times/,
    );
    expect((await scrape(site.urlFor("/r0"), config({ maxRedirects: 5 }))).status).toBe("completed");
  });

  it("times out when the headers do not arrive", async () => {
    site.setPage("/slow", { body: "<p>late</p>", delayMs: 2_000 });
    const started = Date.now();
    const env = await scrape(site.urlFor("/slow"), config({ timeoutMs: 5_000, headersTimeoutMs: 300 }));
    await expectFailure(env, "TIMEOUT", /did not start answering within 0\.3 s/, true);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("times out on the total budget when the body stalls", async () => {
    site.setPage("/stall", { body: "<p>late</p>", bodyDelayMs: 2_000 });
    const env = await scrape(site.urlFor("/stall"), config({ timeoutMs: 400, headersTimeoutMs: 300 }));
    await expectFailure(env, "TIMEOUT", /^Timed out after 0\.4 s fetching http:\/\/127\.0\.0\.1:\d+\/stall/, true);
  });

  it("reports HTTP errors with the status; 5xx and 429 are retryable", async () => {
    site.setPage("/boom", { status: 500, body: "oops" });
    await expectFailure(
      await scrape(site.urlFor("/boom")),
      "HTTP_ERROR",
      /^The page answered 500 Internal Server Error\./,
      true,
    );
    site.setPage("/gone", { status: 404, body: "nope" });
    await expectFailure(
      await scrape(site.urlFor("/gone")),
      "HTTP_ERROR",
      /^The page answered 404 Not Found: .* does not exist/,
      false,
    );
    site.setPage("/busy", { status: 429, body: "slow down" });
    await expectFailure(await scrape(site.urlFor("/busy")), "RATE_LIMITED", /429 Too Many Requests/, true);
    const env = await scrape(site.urlFor("/boom"));
    expect(env.error?.details).toMatchObject({ httpStatus: 500 });
  });

  it("fails cleanly on invalid JSON and on cancellation", async () => {
    site.setPage("/bad.json", { body: "{nope", contentType: "application/json" });
    await expectFailure(await scrape(site.urlFor("/bad.json")), "INVALID_RESPONSE", /is not valid JSON/, true);
    site.setPage("/slow", { body: "<p>x</p>", delayMs: 1_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const env = await scrape(site.urlFor("/slow"), config(), { signal: controller.signal });
    await expectFailure(env, "ABORTED", /cancelled/, true);
  });
});

describe("web.scrape usage ledger", () => {
  it("records exactly one entry per call that reached the site, none for blocked calls", async () => {
    site.setPage("/old", { redirectTo: "/new" });
    site.setPage("/new", { body: "<p>x</p>" });
    const ledger = createMemoryLedger();
    const ctx = { config: config(), ledger, callKey: "run-1:crawl" };
    await executeCapability("web.scrape", { url: site.urlFor("/old") }, ctx);
    expect(ledger.calls).toBe(1);
    expect(ledger.entries.get("run-1:crawl")).toMatchObject({
      capability: "web.scrape",
      status: "completed",
      requests: 2,
      httpStatus: 200,
    });

    await executeCapability("web.scrape", { url: "http://10.0.0.5/" }, { config: config(), ledger });
    await executeCapability("web.scrape", { url: "nope" }, { config: config(), ledger });
    expect(ledger.calls).toBe(1);

    site.setPage("/boom", { status: 503 });
    await executeCapability("web.scrape", { url: site.urlFor("/boom") }, { config: config(), ledger });
    expect(ledger.calls).toBe(2);
    const failedEntry = [...ledger.entries.values()].at(-1);
    expect(failedEntry).toMatchObject({ status: "failed", errorCode: "HTTP_ERROR", httpStatus: 503 });
  });

  it("uses a deterministic default call key, so a redelivered call maps to the same ledger row", async () => {
    site.setPage("/p", { body: "<p>x</p>" });
    const ledger = createMemoryLedger();
    await executeCapability("web.scrape", { url: site.urlFor("/p") }, { config: config(), ledger });
    await executeCapability("web.scrape", { url: ` ${site.urlFor("/p")} ` }, { config: config(), ledger });
    expect(ledger.calls).toBe(2);
    expect(ledger.entries.size).toBe(1);
    expect([...ledger.entries.keys()][0]).toMatch(/^web\.scrape:[0-9a-f]{32}$/);
  });
});

describe("web.scrape encodings (raw byte server)", () => {
  // The fixture site serves UTF-8 strings; these cases need exact bytes on the wire.
  let raw: Server;
  let rawUrl: string;
  beforeAll(async () => {
    raw = createServer((req, res) => {
      if (req.url === "/latin1") {
        res.writeHead(200, { "content-type": "text/html; charset=ISO-8859-1" });
        res.end(Buffer.from("<title>Café crème</title><p>Prix : 12,50 €</p>".replace("€", "EUR"), "latin1"));
      } else if (req.url === "/meta-charset") {
        res.writeHead(200, { "content-type": "text/html" });
        res.end(Buffer.from(`<meta charset="windows-1252"><title>Naïve</title>`, "latin1"));
      } else {
        const body = gzipSync(Buffer.from(`<title>Zipped</title><p>${"ünïcode ".repeat(10)}</p>`));
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-encoding": "gzip" });
        res.end(body);
      }
    });
    await new Promise<void>((r) => raw.listen(0, "127.0.0.1", r));
    rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    raw.closeAllConnections();
    await new Promise((r) => raw.close(r));
  });
  const cfg = () => config({ allowHosts: [new URL(rawUrl).host] });

  it("decodes latin1 declared in the header", async () => {
    const out = await scrapeOk(`${rawUrl}/latin1`, cfg());
    expect(out.document.title).toBe("Café crème");
    expect(out.document.prices).toEqual([{ amount: 12.5, currency: "EUR", text: "12,50 EUR" }]);
  });

  it("decodes the charset from a meta tag", async () => {
    expect((await scrapeOk(`${rawUrl}/meta-charset`, cfg())).document.title).toBe("Naïve");
  });

  it("decompresses gzip", async () => {
    const out = await scrapeOk(`${rawUrl}/gzip`, cfg());
    expect(out.document.title).toBe("Zipped");
    expect(out.document.mainText).toContain("ünïcode");
  });
});

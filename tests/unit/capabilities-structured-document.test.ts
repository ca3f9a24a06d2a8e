import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  cleanUrl,
  DOCUMENT_FORMAT_VERSION,
  documentFormatOfHash,
  formatStructuredDocument,
  hashStructuredDocument,
  VOLATILE_JSON_KEYS,
} from "@/server/capabilities";
import { decodeBody, sniffCharset } from "@/server/capabilities/web-scrape/decode-body";

const URL_ = "https://shop.example/p/widget";
const hash = (html: string, url = URL_) => hashStructuredDocument(formatStructuredDocument(html, url), "v1");

describe("formatStructuredDocument (HTML)", () => {
  it("prefers <main>, drops chrome, hidden elements, scripts and comments", () => {
    const doc = formatStructuredDocument(
      `<html><head><title>Shop — Widget</title></head><body>
        <header><h1>Shop</h1></header><nav>Home Shop Cart</nav>
        <main><h2>Widget</h2><p>Only <b>$9.99</b>&nbsp;today &amp; tomorrow</p>
          <p style="display: none">hidden promo</p><span aria-hidden="true">★</span>
          <script>var secret = 1</script><noscript>enable js</noscript><template><p>tpl</p></template>
          <svg><title>icon</title><text>svg text</text></svg><!-- a comment -->
          <iframe src="x">frame</iframe><aside>related</aside>
          <h3>Specs</h3><table><tr><td>Weight</td><td>2 kg</td></tr></table>
        </main><footer>© 2024</footer></body></html>`,
      URL_,
    );
    expect(doc.title).toBe("Shop — Widget");
    expect(doc.headings).toEqual(["Widget", "Specs"]);
    expect(doc.mainText).toBe("Widget\nOnly $9.99 today & tomorrow\nSpecs\nWeight 2 kg");
    expect(doc.prices).toEqual([{ amount: 9.99, currency: "USD", text: "$9.99" }]);
  });

  it("falls back to [role=main], a single <article>, then <body>", () => {
    expect(formatStructuredDocument(`<body><div>x</div><div role="main">in</div></body>`, URL_).mainText).toBe("in");
    expect(formatStructuredDocument(`<body><p>x</p><article>story</article></body>`, URL_).mainText).toBe("story");
    expect(formatStructuredDocument(`<body><article>a</article><article>b</article></body>`, URL_).mainText).toBe(
      "a\nb",
    );
  });

  it("builds the canonical URL without tracking or cache-busting parameters", () => {
    const doc = formatStructuredDocument(
      `<link rel="canonical" href="/p/widget?utm_source=x&amp;color=red&amp;gclid=1&amp;_=1700000000&amp;size=m#reviews">`,
      URL_,
    );
    expect(doc.canonicalUrl).toBe("https://shop.example/p/widget?color=red&size=m");
    expect(formatStructuredDocument("<p>x</p>", `${URL_}?fbclid=1&ref=home&mc_eid=2`).canonicalUrl).toBe(URL_);
  });

  it("extracts JSON-LD entities, flattening @graph and dropping @context and volatile keys", () => {
    const doc = formatStructuredDocument(
      `<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
         {"@type":"Organization","name":"Acme"},
         {"@type":"Product","name":"Widget","sku":"W1","offers":{"@type":"Offer","price":"9.99","priceCurrency":"USD","availability":"https://schema.org/InStock","url":"https://shop.example/p?utm_campaign=z"}}]}</script>
       <script type="application/ld+json">[{"@type":"LocalBusiness","name":"Acme Store","openingHours":"Mo-Fr 09:00-17:00","requestId":"abc"}]</script>
       <script type="application/ld+json">{ broken json</script>
       <p>body</p>`,
      URL_,
    );
    expect(doc.jsonLd).toEqual([
      { "@type": "Organization", name: "Acme" },
      {
        "@type": "Product",
        name: "Widget",
        sku: "W1",
        offers: {
          "@type": "Offer",
          price: "9.99",
          priceCurrency: "USD",
          availability: "https://schema.org/InStock",
          url: "https://shop.example/p",
        },
      },
      { "@type": "LocalBusiness", name: "Acme Store", openingHours: "Mo-Fr 09:00-17:00" },
    ]);
  });

  it("uses og:title, then the first heading, when there is no <title>", () => {
    expect(formatStructuredDocument(`<meta property="og:title" content="OG"><h1>H</h1>`, URL_).title).toBe("OG");
    expect(formatStructuredDocument(`<h1>Heading</h1>`, URL_).title).toBe("Heading");
    expect(formatStructuredDocument(`<p>none</p>`, URL_).title).toBeNull();
  });

  it("never throws on malformed markup", () => {
    const doc = formatStructuredDocument(`<div><p>unclosed <b>bold <i>both</div></span><<>>`, URL_);
    expect(doc.mainText).toContain("unclosed bold both");
  });

  it("handles deeply nested pages without recursion limits", () => {
    const depth = 20_000;
    const html = `${"<div>".repeat(depth)}deep $5${"</div>".repeat(depth)}`;
    expect(formatStructuredDocument(html, URL_).prices).toEqual([{ amount: 5, currency: "USD", text: "$5" }]);
  });
});

describe("hash stability", () => {
  const page = (o: { nonce: string; ws: string; attrs: "a" | "b"; ts: string; csrf: string; price?: string }) =>
    `<html><head><title>${o.ws}Widget${o.ws}</title>
      <meta name="generated" content="${o.ts}"><meta http-equiv="last-modified" content="${o.ts}">
      <meta name="csrf-token" content="${o.csrf}">
      <script nonce="${o.nonce}">window.t=${JSON.stringify(o.ts)}</script>
      <link rel="canonical" href="${URL_}?utm_source=${o.nonce}"></head>
      <body><!-- ${o.ts} --><main>${o.ws}<p ${o.attrs === "a" ? 'class="p" id="x"' : 'id="x"   class="p"'}>Price:${o.ws} ${o.price ?? "€12,50"}</p>
      <input type="hidden" name="csrf" value="${o.csrf}">${o.ws}</main></body></html>`;

  it("is identical across nonces, whitespace, attribute order, tracking params, meta timestamps, CSRF tokens and comments", () => {
    const a = hash(page({ nonce: "n1", ws: "", attrs: "a", ts: "2024-01-01T00:00:00Z", csrf: "t1" }));
    const b = hash(
      page({ nonce: "n2", ws: "\n \t  ", attrs: "b", ts: "2024-06-30T12:34:56Z", csrf: "t2" }),
      `${URL_}?utm_medium=email&gclid=x`,
    );
    expect(b).toBe(a);
  });

  it("changes with a visible price and with the salt", () => {
    const base = { nonce: "n", ws: "", attrs: "a" as const, ts: "t", csrf: "c" };
    const doc = formatStructuredDocument(page(base), URL_);
    expect(hash(page({ ...base, price: "€12,90" }))).not.toBe(hash(page(base)));
    expect(hashStructuredDocument(doc, "v2")).not.toBe(hashStructuredDocument(doc, "v1"));
    // The document format is part of the hash, readable from it (format 1 hashes had no prefix).
    expect(hashStructuredDocument(doc, "v1")).toMatch(new RegExp(`^d${DOCUMENT_FORMAT_VERSION}:[0-9a-f]{64}$`));
    expect(documentFormatOfHash(hashStructuredDocument(doc, "v1"))).toBe(DOCUMENT_FORMAT_VERSION);
    expect(documentFormatOfHash("0".repeat(64))).toBe(1);
  });

  it("JSON: reordered keys and volatile keys hash the same; documented list is conservative", () => {
    const a = formatStructuredDocument(
      { kind: "json", json: { b: 1, a: [{ y: 2, x: 1 }], requestId: "r1", meta: { traceId: "t", etag: "e" } } },
      URL_,
    );
    const b = formatStructuredDocument(
      { kind: "json", json: { meta: { etag: "f", traceId: "u" }, a: [{ x: 1, y: 2 }], request_id: "r2", b: 1 } },
      URL_,
    );
    expect(a.json).toEqual({ b: 1, a: [{ y: 2, x: 1 }], meta: {} });
    expect(hashStructuredDocument(a, "v1")).toBe(hashStructuredDocument(b, "v1"));
    expect(VOLATILE_JSON_KEYS.has("updatedat")).toBe(false); // content dates are kept
    const c = formatStructuredDocument({ kind: "json", json: { b: 2, a: [{ x: 1, y: 2 }] } }, URL_);
    expect(hashStructuredDocument(c, "v1")).not.toBe(hashStructuredDocument(a, "v1"));
  });

  it("array order matters (it is content)", () => {
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
    expect(canonicalJson({ b: 1, a: { d: undefined, c: 2 } })).toBe('{"a":{"c":2},"b":1}');
  });
});

describe("cleanUrl", () => {
  it("strips tracking parameters, sorts the rest and drops the fragment", () => {
    expect(cleanUrl("https://x.test/a?utm_source=1&UTM_Medium=2&b=2&a=1&fbclid=3&ref=4&mc_eid=5&gclid=6#f")).toBe(
      "https://x.test/a?a=1&b=2",
    );
    expect(cleanUrl("javascript:alert(1)")).toBeNull();
    expect(cleanUrl("/rel", "https://x.test/base/")).toBe("https://x.test/rel");
  });
});

describe("charset decoding", () => {
  it("decodes latin1/windows-1252 and utf-8, sniffing BOM and <meta charset>", () => {
    expect(decodeBody(Buffer.from("café", "latin1"), "iso-8859-1")).toBe("café");
    expect(decodeBody(Buffer.from("café", "utf8"), "utf-8")).toBe("café");
    expect(decodeBody(Buffer.from("x", "utf8"), "no-such-charset")).toBe("x");
    const metaLatin = Buffer.from('<meta charset="ISO-8859-1"><p>é</p>', "latin1");
    expect(sniffCharset(metaLatin, "text/html")).toBe("iso-8859-1");
    expect(sniffCharset(Buffer.from([0xef, 0xbb, 0xbf, 0x41]), "text/html", "iso-8859-1")).toBe("utf-8");
    expect(sniffCharset(Buffer.from("{}"), "application/json")).toBe("utf-8");
  });
});

describe("performance", () => {
  it("formats a large page in linear time", () => {
    const row = (i: number) => `<tr class="r${i}" data-x="${i}"><td>Item ${i}</td><td>$${i}.99</td></tr>`;
    const build = (n: number) =>
      `<html><body><main><table>${Array.from({ length: n }, (_, i) => row(i)).join("")}</table></main></body></html>`;
    const time = (html: string) => {
      const t = performance.now();
      formatStructuredDocument(html, URL_);
      return performance.now() - t;
    };
    time(build(2_000)); // warm up
    const small = time(build(5_000));
    const big = time(build(20_000));
    expect(big).toBeLessThan(small * 10 + 50); // 4x input → well under 10x time
  });
});

describe("HTML scanning edge cases", () => {
  const text = (html: string) => formatStructuredDocument(html, URL_).mainText;

  it("treats newlines inside text as spaces and block elements as line breaks", () => {
    expect(text("<p>a\nb</p><div>c<br>d</div><span>e</span><span>f</span>")).toBe("a b\nc\nd\nef");
  });

  it("keeps raw-text elements raw and closes unclosed chrome with its parent", () => {
    expect(text(`<div><script>if (a<b && "</div>") {}</script>x</div>`)).toBe("x");
    expect(text(`<div><nav>menu<p>still menu</div><p>after</p>`)).toBe("after");
    expect(text(`<html><head><title>T</title><p>no body tag</p>`)).toBe("no body tag");
    expect(text(`<p>a < b and c > d</p></span></p><p>e</p>`)).toBe("a < b and c > d\ne");
  });

  it("reads quoted attributes containing '>' and decodes entities", () => {
    expect(text(`<p title="a > b" data-x='>'>caf&eacute; &lt;3 &#8364;5 &euro;6 &nbsp;x &amp</p>`)).toBe(
      "café <3 €5 €6 x &",
    );
    expect(formatStructuredDocument(`<p>&euro;5 &#x24;7</p>`, URL_).prices.map((p) => p.text)).toEqual(["€5", "$7"]);
  });

  it("takes headings with nested markup, only from the content root", () => {
    const doc = formatStructuredDocument(
      `<header><h1>Site</h1></header><main><h1><a href="/">Prod<b>uct</b></a> <div>X</div></h1></main>`,
      URL_,
    );
    expect(doc.headings).toEqual(["Product X"]);
  });

  it("ignores <title> and JSON-LD inside svg and template", () => {
    const doc = formatStructuredDocument(
      `<svg><title>icon</title></svg><template><script type="application/ld+json">{"@type":"X"}</script></template><title>Real</title>`,
      URL_,
    );
    expect(doc.title).toBe("Real");
    expect(doc.jsonLd).toEqual([]);
  });
});

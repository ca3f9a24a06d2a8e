import { describe, expect, it } from "vitest";
import {
  cleanUrl,
  findAvailabilityPhrase,
  formatStructuredDocument,
  normaliseAvailability,
} from "@/server/capabilities";
import { buildHtmlTree, MAX_TREE_DEPTH } from "@/server/capabilities/web-scrape/html-tree";
import { parseLenientJson } from "@/server/capabilities/web-scrape/parse-lenient-json";
import { readPrice } from "@/server/capabilities/web-scrape/read-offers";
import { scoreCorpus } from "../fixtures/corpus/evaluate-corpus";
import { CORPUS_PAGES } from "../fixtures/corpus/pages";

/** The page-understanding corpus (tests/fixtures/corpus/pages): every shape read right, every hash stable. */

describe("page-understanding corpus", () => {
  const summary = scoreCorpus();

  it("covers the real-world shapes", () => {
    expect(CORPUS_PAGES.length).toBeGreaterThanOrEqual(20);
    expect(new Set(CORPUS_PAGES.map((p) => p.id)).size).toBe(CORPUS_PAGES.length);
  });

  it.each(summary.scores.map((s) => [s.id, s] as const))("%s", (_id, score) => {
    expect(score.problems).toEqual([]);
    expect(score.variants).toBeGreaterThanOrEqual(16);
  });

  it("100 %: offers found, availability found, hash stable under volatile-only variants, entity keys stable, every change seen", () => {
    expect(summary.offers.found).toBe(summary.offers.of);
    expect(summary.availability.found).toBe(summary.availability.of);
    expect(summary.hashStable.stable).toBe(summary.pages);
    expect(summary.entityKeyStable.stable).toBe(summary.pages);
    expect(summary.priceChanges.moved).toBe(summary.pages);
    expect(summary.availabilityChanges.moved).toBe(summary.availabilityChanges.of);
  });
});

describe("lenient JSON-LD", () => {
  it("reads comments, trailing commas, wrappers and raw control characters; refuses what is still not JSON", () => {
    expect(parseLenientJson(`<!-- {"a": 1, /* c */ "b": [1, 2,], // x\n} -->`)).toEqual({ a: 1, b: [1, 2] });
    expect(parseLenientJson(`//<![CDATA[\n{"a": "x"}\n//]]>`)).toEqual({ a: "x" });
    expect(parseLenientJson(`{"d": "line\nnext\tTab", "u": "http://x.test/a"}`)).toEqual({
      d: "line\nnext\tTab",
      u: "http://x.test/a",
    });
    expect(parseLenientJson(`{"s": "a, ]b // not a comment"}`)).toEqual({ s: "a, ]b // not a comment" });
    expect(parseLenientJson(`{ broken`)).toBeUndefined();
  });

  it("is linear on hostile input", () => {
    const text = `[${"1,".repeat(200_000)}`;
    expect(parseLenientJson(text)).toBeUndefined();
    expect(parseLenientJson(`{"a":"${"\n".repeat(100_000)}"}`)).toEqual({ a: "\n".repeat(100_000) });
  });
});

describe("availability and prices", () => {
  it("normalises schema.org URLs and plain words", () => {
    expect(normaliseAvailability("https://schema.org/OutOfStock")).toBe("OutOfStock");
    expect(normaliseAvailability("http://SCHEMA.org/InStock")).toBe("InStock");
    expect(normaliseAvailability("schema:PreOrder")).toBe("PreOrder");
    expect(normaliseAvailability("in stock")).toBe("InStock");
    expect(normaliseAvailability("oos")).toBe("OutOfStock");
    expect(normaliseAvailability("limited_availability")).toBe("LimitedAvailability");
    expect(normaliseAvailability("maybe")).toBeNull();
    expect(normaliseAvailability(3)).toBeNull();
  });

  it("finds the first stock phrase in many languages; negations win over the phrase they contain", () => {
    const cases: [string, string | null][] = [
      ["Nicht auf Lager", "OutOfStock"],
      ["Auf Lager, Lieferung morgen", "InStock"],
      ["Produit en rupture de stock", "OutOfStock"],
      ["Artículo agotado", "OutOfStock"],
      ["Prodotto esaurito", "OutOfStock"],
      ["Niet op voorraad", "OutOfStock"],
      ["Produto esgotado", "OutOfStock"],
      ["Brak w magazynie", "OutOfStock"],
      ["Slut i lager", "OutOfStock"],
      ["Finns i lager", "InStock"],
      ["Only a few left — in stock", "LimitedAvailability"],
      ["Stocking up for winter", null],
      ["Restocked instockings", null],
    ];
    for (const [text, want] of cases) expect(findAvailabilityPhrase(text)?.value ?? null, text).toBe(want);
  });

  it("reads structured prices in both notations", () => {
    expect(readPrice("1.299,00")).toBe(1299);
    expect(readPrice("1,299.00")).toBe(1299);
    expect(readPrice("12,99")).toBe(12.99);
    expect(readPrice("1,299")).toBe(1299);
    expect(readPrice("$19.99")).toBe(19.99);
    expect(readPrice(42)).toBe(42);
    expect(readPrice("call us")).toBeNull();
  });
});

describe("session parameters", () => {
  it("strips query and path session ids and cookieless-session segments, keeping real parameters", () => {
    expect(
      cleanUrl(
        "https://x.test/p/w;jsessionid=AB12?color=red&sessionid=1&PHPSESSID=2&ASPSESSIONIDQACSTRAB=3&zenid=4&osCsid=5&CFID=6&CFTOKEN=7&sid=8",
      ),
    ).toBe("https://x.test/p/w?color=red");
    expect(cleanUrl("https://x.test/(S(lit3py55t21z5v55vlm25s55))/page.aspx")).toBe("https://x.test/page.aspx");
    expect(cleanUrl("https://x.test/a;JSESSIONID=1;v=2/b")).toBe("https://x.test/a;v=2/b");
  });

  it("without a canonical link the tracked URL is the identity, not the redirect target", () => {
    const doc = formatStructuredDocument("<p>x</p>", "https://x.test/p?step=2&sessionid=9", {
      requestedUrl: "https://x.test/p",
    });
    expect(doc.canonicalUrl).toBe("https://x.test/p");
    const linked = formatStructuredDocument(`<link rel="canonical" href="/c;jsessionid=1">`, "https://x.test/p", {
      requestedUrl: "https://x.test/p",
    });
    expect(linked.canonicalUrl).toBe("https://x.test/c");
  });
});

describe("linear tree", () => {
  it("caps the tree's depth and builds hostile pages without recursion", () => {
    const tree = buildHtmlTree(`${"<div>".repeat(5_000)}x`);
    expect(tree.elements.length).toBe(5_000);
    let depth = 0;
    for (let el = tree.elements[4_999] ?? null; el && el.name !== "#document"; el = el.parent) depth++;
    expect(depth).toBe(MAX_TREE_DEPTH);
  });

  it("closes implied ends and ignores unmatched end tags", () => {
    const tree = buildHtmlTree("<ul><li>a<li>b</ul><p>one<p>two</span></p>");
    const lis = tree.elements.filter((e) => e.name === "li");
    expect(lis.map((li) => li.parent?.name)).toEqual(["ul", "ul"]);
    expect(tree.elements.filter((e) => e.name === "p").map((p) => p.parent?.name)).toEqual(["#document", "#document"]);
  });
});

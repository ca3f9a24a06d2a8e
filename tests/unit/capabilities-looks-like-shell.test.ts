import { describe, expect, it } from "vitest";
import { formatStructuredDocument, looksLikeShell } from "@/server/capabilities";
import { visibleChars } from "@/server/capabilities/web-scrape/looks-like-shell";
import { sanitizeText } from "@/server/lib/sanitize-text";
import { jsPricePage } from "../fixtures/site/js-pages";

const verdict = (html: string) =>
  looksLikeShell({
    kind: "html",
    html,
    document: formatStructuredDocument({ kind: "html", html }, "https://shop.example/p"),
  });

const prose = "Our Pro plan includes unlimited projects, priority support and single sign-on for every seat. ".repeat(
  4,
);

describe("looksLikeShell (web.scrape render: auto)", () => {
  it("an empty app root with a noscript warning is a shell, and says why", () => {
    const v = verdict(jsPricePage({ price: "$49" }).body as string);
    expect(v.shell).toBe(true);
    expect(v.reasons.join("; ")).toMatch(/#root/);
    expect(v.reasons.join("; ")).toMatch(/noscript/);
  });

  it.each([
    ["Next.js", `<html><body><div id="__next"></div><script src="/_next/main.js"></script></body></html>`],
    ["Vue", `<html><body><div id="app"></div><script type="module" src="/assets/index.js"></script></body></html>`],
    ["scripts only", `<html><head><title>Shop</title></head><body><script src="/bundle.js"></script></body></html>`],
  ])("%s shell", (_name, html) => {
    expect(verdict(html).shell).toBe(true);
  });

  it("a server-rendered app with its content is not a shell (app root but real text)", () => {
    const v = verdict(
      `<html><body><div id="__next"><main><h1>Pro</h1><p>${prose}</p></main></div><script src="/a.js"></script></body></html>`,
    );
    expect(v).toEqual({ shell: false, reasons: [] });
  });

  it("a terse plain page without app markers stays plain", () => {
    expect(verdict(`<html><body><h1>Closed today</h1><p>Back tomorrow.</p></body></html>`).shell).toBe(false);
  });

  it("a short page that shows a price is read as it is", () => {
    expect(verdict(`<html><body><div id="root"><p>Pro <b>$49.00</b></p></div></body></html>`).shell).toBe(false);
  });

  it("JSON and text bodies are never shells", () => {
    const document = formatStructuredDocument({ kind: "json", json: {} }, "https://api.example/x");
    expect(looksLikeShell({ kind: "json", html: "{}", document }).shell).toBe(false);
  });
});

describe("visibleChars (the shell check's count, without copying the text)", () => {
  // Every character JavaScript's \s matches, ASCII and not, beside ordinary and astral characters.
  const samples = [
    "",
    "  \t\n\v\f\r ",
    "Closed today. Back tomorrow.",
    "a\u00a0b\u1680c\u2000d\u200ae\u2028f\u2029g\u202fh\u205fi\u3000j\ufeffk",
    "€9,90 — 😀 ok\u0085x",
    "\ud800 lone \udc00 surrogates",
  ];
  it.each(samples)("counts what /\\s+/ removal leaves: %j", (text) => {
    const expected = text.replace(/\s+/g, "").length;
    expect(visibleChars(text, Number.POSITIVE_INFINITY)).toBe(expected);
    expect(visibleChars(text, 3)).toBe(Math.min(expected, 3));
  });
});

describe("sanitizeText's fast path", () => {
  // The pattern it replaces on text that has something to remove.
  const slow = (t: string) =>
    // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what must go
    t.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "");
  it.each([
    "plain ASCII",
    "€ and 😀 (a pair)",
    "NUL\u0000inside",
    "lone high \ud800 here",
    "lone low \udc00 here",
    "\udc00\ud800 reversed pair",
    "😀\ud83d",
  ])("same result as the full pattern: %j", (text) => {
    expect(sanitizeText(text)).toBe(slow(text));
  });
  it("returns the very string when there is nothing to remove", () => {
    const text = `<p>${"x".repeat(1000)} 😀</p>`;
    expect(sanitizeText(text)).toBe(text);
  });
});

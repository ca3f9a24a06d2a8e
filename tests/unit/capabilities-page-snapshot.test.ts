import { describe, expect, it } from "vitest";
import { answerCssQueries } from "@/server/capabilities/web-scrape/css-query";
import { buildHtmlTree, getAttr } from "@/server/capabilities/web-scrape/html-tree";
import {
  ELEMENT_NUMBER,
  SHOT_ATTRIBUTE,
  snapshotPage,
  stampedSnapshot,
} from "@/server/capabilities/web-scrape/page-snapshot";

/**
 * The page view's copy of a sample page (docs/page-view.md): nothing in it can run or load, every element is
 * numbered once, and the page's element structure is kept, so an anchor checked on the copy holds on the page.
 */

const HOSTILE = `<!doctype html><html><head><title>T</title><base href="https://evil.example/">
<meta http-equiv="refresh" content="0;url=https://evil.example/"><link rel="stylesheet" href="https://evil.example/x.css">
<style>@import url(https://evil.example/y.css); .a{color:red}</style><script>steal()</script></head>
<body onload="steal()"><div id="pro" data-bw-n="999" class="card"><h2>Pro</h2>
<span class="price" onclick="steal()" onmouseover="steal()">$49</span>
<a href="javascript:steal()">Choose Pro</a><a href="https://example.com/pro">More</a>
<img src="https://evil.example/pixel.gif" srcset="https://evil.example/a.png 2x" alt="pixel"><img src="data:image/png;base64,AAAA" alt="inline">
<iframe src="https://evil.example/frame"></iframe><object data="https://evil.example/o"></object><embed src="https://evil.example/e">
<svg onload="steal()"><script>steal()</script></svg><noscript><img src="https://evil.example/ns.gif"></noscript>
<form action="https://evil.example/post" method="post"><select name="v"><option value="s">Small — $3</option></select>
<input type="hidden" name="csrf" value="secret-token"><button formaction="https://evil.example/b">Buy</button></form>
<div style="background:url(https://evil.example/bg.png)">styled</div></div></body></html>`;

describe("the page snapshot", () => {
  const { html, truncated } = snapshotPage(HOSTILE);

  it("keeps nothing that runs or navigates", () => {
    expect(truncated).toBe(false);
    expect(html).not.toMatch(/<script|<iframe|<object|<embed|<base|<link rel|http-equiv|javascript:/i);
    expect(html).not.toMatch(/\son\w+=/i);
    expect(html).not.toMatch(/steal\(\)/);
    expect(html).not.toMatch(/action=|formaction=|srcset=|@import/i);
    // Images only from inline data; the remote one keeps its alt text but no address.
    expect(html).toContain('src="data:image/png;base64,AAAA"');
    expect(html).not.toContain("pixel.gif");
  });

  it("keeps the text, the links' words and the attributes anchors are made of", () => {
    for (const kept of ["$49", "Choose Pro", 'id="pro"', 'class="price"', "Small — $3", "<h2", "styled"])
      expect(html).toContain(kept);
  });

  it("numbers every element once, over any number the page itself carried", () => {
    const tree = buildHtmlTree(html);
    const numbers = tree.elements.filter((e) => e.name !== "#document").map((e) => getAttr(e, ELEMENT_NUMBER));
    expect(numbers.every((n) => n !== undefined && /^\d+$/.test(n))).toBe(true);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(html).not.toContain(`${ELEMENT_NUMBER}="999"`);
  });

  it("keeps the element structure: code and frames become empty placeholders, not gaps", () => {
    const page = `<html><body><dl><dt>Price</dt><script>x</script><dd>$5</dd></dl><table><tr><script></script><td>Basic</td><td>$9</td></tr></table></body></html>`;
    const copy = snapshotPage(page).html;
    const queries = [
      { selector: "dt + dd", all: true },
      { selector: "tr > :nth-child(3)", all: true },
    ];
    // The adjacent-sibling anchor fails on the page (a script sits between) and so it fails on the copy too.
    const onPage = answerCssQueries(buildHtmlTree(page), queries);
    const onCopy = answerCssQueries(buildHtmlTree(copy), queries);
    expect(onCopy).toEqual(onPage);
    expect(onCopy["all||tr > :nth-child(3)"]).toEqual({ ok: true, values: ["$9"] });
  });

  it("fits a page too large for the budget: styles go first, then the end of the page", () => {
    const big = `<html><head><style>${".x{color:red}".repeat(5_000)}</style></head><body>${"<p>row</p>".repeat(20_000)}</body></html>`;
    const small = snapshotPage(big, 100_000);
    expect(small.html.length).toBeLessThanOrEqual(100_000);
    expect(small.truncated).toBe(true);
    expect(small.html).not.toContain(".x{color:red}");
    expect(small.html.endsWith(">")).toBe(true);
  });

  it("stamps the page for its picture: each stamp names the copy element made from the same element", () => {
    const page = `<!DOCTYPE html><html><head><script>x()</script></head><body><table><tr><td>Pro</td><td class="p">$49</td></tr></table>
<svg><text>ignored</text></svg><p id="after">after</p></body></html>`;
    const { stamped, stamps, html } = stampedSnapshot(page);
    // The stamped page keeps its doctype (standards mode in the browser) and its scripts (the browser runs none).
    expect(stamped.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(stamped).toContain("<script");
    // The copy carries no stamp, only its own numbers; the copy equals the unstamped copy.
    expect(html).not.toContain(SHOT_ATTRIBUTE);
    expect(html).toBe(snapshotPage(page).html);
    const stampOf = (selector: string) => {
      const answer = answerCssQueries(buildHtmlTree(stamped), [{ selector, all: false, attribute: SHOT_ATTRIBUTE }]);
      return Number((Object.values(answer)[0] as { values: string[] }).values[0]);
    };
    const numberOf = (selector: string) => {
      const answer = answerCssQueries(buildHtmlTree(html), [{ selector, all: false, attribute: ELEMENT_NUMBER }]);
      return Number((Object.values(answer)[0] as { values: string[] }).values[0]);
    };
    const map = new Map(stamps);
    for (const selector of ["td.p", "#after", "table", "body"])
      expect(map.get(stampOf(selector))).toBe(numberOf(selector));
    // Elements the copy drops or empties (inside an svg) have no number to map to.
    expect(map.get(stampOf("text"))).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { anchorElement, isStableName } from "@/server/capabilities/web-scrape/anchor-element";
import { answerCssQueries } from "@/server/capabilities/web-scrape/css-query";
import { buildHtmlTree, getAttr, isElement, textOf } from "@/server/capabilities/web-scrape/html-tree";
import { ELEMENT_NUMBER, snapshotPage } from "@/server/capabilities/web-scrape/page-snapshot";
import { volatileFor } from "../fixtures/corpus/pages";
import { PLAN_PAGES } from "../fixtures/corpus/pages/plans";

/**
 * Anchoring the element a person points at (docs/page-view.md): an id, microdata, a named part of the page,
 * the heading, label or row that names it before any position; checked on the copy to read that element alone;
 * and it reads the same element on the live page, also after the page around it changes.
 */

/** The number of the deepest element of the copy whose text contains `text`. */
function numberOf(html: string, text: string): number {
  const tree = buildHtmlTree(html);
  const hit = tree.elements.filter(
    (e) =>
      e.name !== "template" &&
      textOf(e).includes(text) &&
      !e.children.some((c) => isElement(c) && textOf(c).includes(text)),
  )[0];
  if (!hit) throw new Error(`nothing shows ${text}`);
  return Number(getAttr(hit, ELEMENT_NUMBER));
}

const readOn = (html: string, selector: string) => {
  const answer = answerCssQueries(buildHtmlTree(html), [{ selector, all: true }])[`all||${selector}`];
  return answer?.ok ? answer.values.map((v) => (v ?? "").trim()) : [];
};

describe("anchoring a pointed element", () => {
  it("on every visible plan price of the plans corpus: named, not positional, and it reads that price on the live page", () => {
    let pointed = 0;
    for (const page of PLAN_PAGES) {
      const copy = snapshotPage(page.render(page.prices, volatileFor(0))).html;
      for (const [plan, amount] of Object.entries(page.prices)) {
        const shown = page.render(page.prices, volatileFor(0));
        const probe = `${Math.round(amount)}`;
        let n: number;
        try {
          n = numberOf(copy, probe.length >= 2 ? probe : `$${probe}`);
        } catch {
          continue; // a price the page does not show (a hidden option, structured data only)
        }
        const anchored = anchorElement(copy, n);
        if (!anchored.found || !shown.includes(anchored.text.slice(0, 3))) continue;
        pointed++;
        const best = anchored.anchors[0];
        expect(best, `${page.id} ${plan}`).toBeDefined();
        expect(best?.kind, `${page.id} ${plan}: ${best?.selector}`).not.toBe("position");
        // On the live page with other volatile parts and another price for it, the anchor reads the new price alone.
        const changed = { ...page.prices, [plan]: amount + 7 };
        const live = readOn(page.render(changed, volatileFor(4)), best?.selector ?? "");
        expect(live, `${page.id} ${plan}: ${best?.selector}`).toHaveLength(1);
        expect(live[0], `${page.id} ${plan}`).toContain(String(Math.round(amount + 7)).slice(0, 2));
      }
    }
    expect(pointed).toBeGreaterThanOrEqual(30);
  });

  it("prefers a stable id, then microdata, and survives the cards being reordered", () => {
    const card = (name: string, price: string) =>
      `<div class="plan" itemscope itemtype="https://schema.org/Offer"><h3 itemprop="name">${name}</h3><span itemprop="price">${price}</span></div>`;
    const page = (order: string[]) =>
      `<html><body><p id="total-due">$80</p>${order.map((n) => card(n, n === "Pro" ? "$49" : "$19")).join("")}</body></html>`;
    const copy = snapshotPage(page(["Starter", "Pro"])).html;
    const byId = anchorElement(copy, numberOf(copy, "$80"));
    expect(byId.found && byId.anchors[0]).toMatchObject({ kind: "id", selector: "#total-due" });
    const pro = anchorElement(copy, numberOf(copy, "$49"));
    expect(pro.found && pro.anchors[0]).toMatchObject({ kind: "microdata", words: "the price of “Pro”" });
    const selector = pro.found ? (pro.anchors[0]?.selector ?? "") : "";
    expect(readOn(page(["Pro", "Starter"]), selector)).toEqual(["$49"]);
  });

  it("says a row and column of a table in words, and takes the whole price when a click lands in part of it", () => {
    const page = `<html><body><table><thead><tr><th>Plan</th><th>Monthly</th><th>Annual</th></tr></thead><tbody>
      <tr><td>Basic</td><td>$15</td><td><span class="amt">$<b>150</b></span></td></tr>
      <tr><td>Scale</td><td>$120</td><td><span class="amt">$<b>1200</b></span></td></tr></tbody></table></body></html>`;
    const copy = snapshotPage(page).html;
    const inner = anchorElement(copy, numberOf(copy, "1200"));
    expect(inner.found && inner.text).toBe("$1200");
    expect(inner.found && inner.anchors.find((a) => a.kind === "row")?.words).toBe(
      "the price in the row “Scale”, column “Annual”",
    );
    expect(
      readOn(page.replace("$<b>1200</b>", "$<b>999</b>"), inner.found ? (inner.anchors[0]?.selector ?? "") : ""),
    ).toEqual(["$999"]);
  });

  it("names match whole: a card “Pro” is not also “Pro Plus”, before or after the page adds one", () => {
    const card = (name: string, price: string) =>
      `<div class="tier"><h3>${name}</h3><p class="amount">${price}</p></div>`;
    const page = (cards: string) => `<html><body>${cards}</body></html>`;
    const copy = snapshotPage(page(card("Pro", "$49") + card("Team", "$99"))).html;
    const pro = anchorElement(copy, numberOf(copy, "$49"));
    const selector = pro.found ? (pro.anchors[0]?.selector ?? "") : "";
    expect(pro.found && pro.anchors[0]?.kind).toBe("heading");
    expect(readOn(page(card("Pro Plus", "$79") + card("Pro", "$45") + card("Team", "$99")), selector)).toEqual(["$45"]);
  });

  it("falls back to a position only when nothing names the element, and says so", () => {
    const page = `<html><body><div><div><span>$5</span></div><div><span>$6</span></div></div></body></html>`;
    const copy = snapshotPage(page).html;
    const a = anchorElement(copy, numberOf(copy, "$6"));
    expect(a.found && a.anchors.map((x) => x.kind)).toEqual(["position"]);
    expect(a.found && a.anchors[0]?.words).toMatch(/moves if the page is rearranged/);
    expect(anchorElement(copy, 123_456)).toEqual({ found: false });
  });

  it("takes names a site chose, not ones a build generated", () => {
    for (const ok of ["price", "plan-pro", "card__price--annual", "tier2"]) expect(isStableName(ok), ok).toBe(true);
    for (const bad of ["css-1x2y3z", "sc-bdVaJa", "price_a8f3k", "item-48213", "jsx-2093"])
      expect(isStableName(bad), bad).toBe(false);
  });
});

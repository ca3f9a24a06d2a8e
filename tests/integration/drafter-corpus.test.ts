import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePageWorkers } from "@/server/capabilities";
import { drafterLines, scoreDrafter, type TDrafterSummary } from "../fixtures/corpus/evaluate-drafter";
import { ARTICLE_PAGES, CORPUS_PAGES } from "../fixtures/corpus/pages";

/**
 * The rules-mode drafter over the page corpus (docs/intelligence.md, "Drafts anchored by meaning, not position"): each page is read the way setup reads it
 * (structured document + the page reading, CSS answered in the real page worker), drafted, and the
 * draft is filled by code — on the sample, with a promotion line and an ad with a price inserted above
 * the product, and after a price change. The figures are printed (also by `npm run bench -- corpus`).
 */

let summary: TDrafterSummary;

beforeAll(async () => {
  summary = await scoreDrafter();
  console.log(drafterLines(summary).join("\n"));
}, 120_000);
afterAll(async () => {
  await closePageWorkers();
});

describe("drafts anchored by meaning, over the corpus", () => {
  it("covers every product page and the articles", () => {
    expect(summary.pages).toBe(CORPUS_PAGES.length);
    expect(summary.pages).toBeGreaterThanOrEqual(30);
    expect(summary.articles.pages).toBe(ARTICLE_PAGES.length);
  });

  it("picks the product's own price on ≥ 95 % of the product pages, and keeps it when a promotion or an ad is inserted above", () => {
    expect(summary.ownPrice / summary.pages).toBeGreaterThanOrEqual(0.95);
    expect(summary.survivesInsert / summary.pages).toBeGreaterThanOrEqual(0.95);
    expect(summary.followsChange / summary.pages).toBeGreaterThanOrEqual(0.95);
    // Never by position when anything better exists — on this corpus something better always does.
    expect(summary.anchoredByMeaning).toBe(summary.pages);
    // The control measures the same pages: the first detected price is not the product's price on all of
    // them, and an inserted promotion takes its place on every one.
    expect(summary.positional.ownPrice).toBeLessThan(summary.pages);
    expect(summary.positional.survivesInsert).toBeLessThan(summary.survivesInsert);
  });

  it("proposes availability (any change → material) wherever the page states it", () => {
    expect(summary.availability.of).toBe(CORPUS_PAGES.filter((p) => p.expected.availability).length);
    expect(summary.availability.proposed).toBe(summary.availability.of);
  });

  it("offers an article's main text as an ask-the-agent field, no price field from a passing mention, and sees a body edit", () => {
    expect(summary.articles.mainText).toBe(summary.articles.pages);
    expect(summary.articles.noPrice).toBe(summary.articles.pages);
    expect(summary.articles.bodyEdit).toBe(summary.articles.pages);
  });

  it.each(CORPUS_PAGES.map((p) => [p.id] as const))("%s", (id) => {
    const score = summary.scores.find((s) => s.id === id);
    expect(score?.problems).toEqual([]);
  });
});

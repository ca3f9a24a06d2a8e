import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePageWorkers } from "@/server/capabilities";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { scoreArticleVariants, type TArticleVariantSummary } from "../fixtures/corpus/evaluate-article-variants";
import { draftPage } from "../fixtures/corpus/evaluate-drafter";
import { ARTICLE_VARIANT_PAGES } from "../fixtures/corpus/pages/article-variants";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * Rules mode on articles as sites serve them (docs/page-reading.md): an ad line, a counter, a relative time,
 * rotating recommendations and stock words in the prose are recorded as nothing; a paragraph added, removed or
 * rewritten still is. First over every page × variant the way a refresh reads a page (page worker, capture,
 * extractors), then through the hot loop itself on the fixture site.
 */

let summary: TArticleVariantSummary;
let db: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  summary = await scoreArticleVariants();
  db = await createTestDb();
  site = await startFixtureSite();
}, 120_000);
afterAll(async () => {
  await site?.close();
  await closePageWorkers();
  await db?.close();
});

const variants = ARTICLE_VARIANT_PAGES.flatMap((p) => p.variants.map((v) => [p.id, v.id, v.what] as const));

describe("articles are read as articles", () => {
  it.each(ARTICLE_VARIANT_PAGES.map((p) => [p.id]))("%s: main text drafted, no price or stock from the prose", (id) => {
    const score = summary.scores.find((s) => s.page === id);
    expect(score?.noAvailability).toBe(true);
    expect(score?.readAsArticle, score?.fields.join(", ")).toBe(true);
  });
});

describe("page × variant", () => {
  it.each(variants)("%s, %s (%s)", (pageId, variantId) => {
    const v = summary.scores.find((s) => s.page === pageId)?.variants.find((x) => x.variant === variantId);
    expect(v).toBeDefined();
    if (!v) return;
    if (v.bodyEdit) expect(v.moved, "a body edit must move the record").toContain("main_text");
    else {
      expect(v.moved, "nothing a reader would call a change may move the record").toEqual([]);
      expect(v.hashChanged, "…nor the document's hash").toBe(false);
    }
  });

  it("figures", () => {
    expect(summary.quiet).toEqual({ unchangedRecord: summary.quiet.of, unchangedHash: summary.quiet.of, of: 19 });
    expect(summary.bodyEdits).toEqual({ recorded: 16, of: 16 });
  });
});

describe("through the hot loop (rules mode)", () => {
  const options = (): TRefreshOptions => ({
    trigger: "manual",
    models: { filler: null, judge: null },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5_000 }),
  });

  it.each(ARTICLE_VARIANT_PAGES.map((p) => [p.id]))(
    "%s: every quiet variant is 'unchanged' with no change row; a rewritten paragraph is one notable row",
    async (id) => {
      const page = ARTICLE_VARIANT_PAGES.find((p) => p.id === id);
      if (!page) throw new Error(id);
      const path = `/articles${page.path}`;
      const { definition } = await draftPage(page.render(page.base), page.path, "Tell me when this article changes.");
      site.setPage(path, { body: page.render(page.base) });
      const { tracker } = await createActiveTracker(db.db, {
        capability: "web.scrape",
        capabilityInput: { url: `${site.url}${path}` },
        definition,
        decision: "Tell me when this article changes.",
      });
      expect((await refreshTracker(db.db, tracker.id, options())).outcome).toBe("baseline");
      const rows = () => db.db.entityChange.count({ where: { trackerId: tracker.id } });
      for (const v of page.variants.filter((x) => !x.bodyEdit)) {
        site.setPage(path, { body: page.render(v.parts) });
        const run = await refreshTracker(db.db, tracker.id, options());
        expect([v.id, run.outcome]).toEqual([v.id, "unchanged"]);
      }
      expect(await rows()).toBe(1); // the baseline only
      const edit = page.variants.find((x) => x.id === "paragraph-rewritten");
      if (!edit) throw new Error("no rewrite variant");
      site.setPage(path, { body: page.render(edit.parts) });
      const run = await refreshTracker(db.db, tracker.id, options());
      expect(run.outcome).toBe("notable");
      expect(run.modelCalls).toBe(0);
      expect(await rows()).toBe(2);
    },
    60_000,
  );
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePageWorkers } from "@/server/capabilities";
import { planLines, scorePlanCase, scorePlans, type TPlanSummary } from "../fixtures/corpus/evaluate-plans";
import { PLAN_PAGES } from "../fixtures/corpus/pages/plans";

/**
 * Decision-aware drafting without a model: multi-plan / multi-variant pages × decisions that each name
 * one plan or variant. Each page is read the way setup reads it (CSS answered in the real page worker),
 * drafted in rules mode, and the draft's MAIN price field is filled by code on the sample, after the
 * named price changes and after another plan's price changes. Figures also in `npm run bench -- corpus`.
 */

let summary: TPlanSummary;

beforeAll(async () => {
  summary = await scorePlans();
  console.log(planLines(summary).join("\n"));
}, 180_000);
afterAll(async () => {
  await closePageWorkers();
});

describe("the decision's words pick the plan or variant", () => {
  it("covers at least 10 page shapes and every decision", () => {
    expect(summary.pages).toBeGreaterThanOrEqual(10);
    expect(summary.cases).toBe(PLAN_PAGES.reduce((n, p) => n + p.decisions.length, 0));
  });

  it("binds the named one as the main price field in ≥ 95 % of page × decision cases", () => {
    expect(summary.bound / summary.cases).toBeGreaterThanOrEqual(0.95);
  });

  it("gives every pricing or product page a price field", () => {
    expect(summary.pagesWithPrice).toBe(summary.pages);
  });

  it("says which prices there were and why this one", () => {
    const s = summary.scores.find((x) => x.page === "cards-price-class" && x.plan === "Pro");
    const note = s?.notes.find((n) => /prices on the page/.test(n)) ?? "";
    expect(note).toMatch(/^3 prices on the page: Starter \$19, Pro \$49, Team \$99; watching Pro \(\$49/);
    expect(note).toContain("because the decision names “Pro”");
  });

  it("fails a decision that names a plan the page does not have (the check can fail)", async () => {
    const page = PLAN_PAGES.find((p) => p.id === "cards-price-class");
    if (!page) throw new Error("fixture missing");
    const s = await scorePlanCase(page, "Is Acme undercutting us on the Pro plan?", "Team");
    expect(s.bound).toBe(false);
  });

  it.each(PLAN_PAGES.flatMap((p) => p.decisions.map((d) => [p.id, d.text] as const)))("%s · %s", (id, text) => {
    const s = summary.scores.find((x) => x.page === id && x.decision === text);
    expect(s?.problems).toEqual([]);
  });
});

import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { parseDefinition, type TTrackerDefinition } from "@/server/intelligence/definition";
import { diffRecords } from "@/server/intelligence/diff";
import { fillRecord } from "@/server/intelligence/fill";
import { describeFieldsForJudge, judgeDeltas } from "@/server/intelligence/judge";
import { evaluateDeltas, pickUndecided, summariseVerdicts } from "@/server/intelligence/materiality";
import { WORKED_EXAMPLE_DEFINITION } from "../fixtures/worked-example";

/** docs/design.md §3 worked example (maps.place), run through the pure steps: fill → diff → code rules → judge. */
const parsed = parseDefinition(WORKED_EXAMPLE_DEFINITION);
if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
const def: TTrackerDefinition = parsed.definition;

const hours = ["Monday: 9:00 AM – 5:00 PM", "Tuesday: 9:00 AM – 5:00 PM"];
const before = {
  placeId: "ChIJ1",
  rating: 4.4,
  reviewCount: 312,
  openingHours: hours,
  description: "Cosy neighbourhood bistro with a short seasonal menu.",
};
const after = {
  ...before,
  rating: 4.3,
  reviewCount: 470,
  description: "A cosy neighbourhood bistro serving a short, seasonal menu.",
};

function judgeModel(answer: unknown) {
  return new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text", text: JSON.stringify(answer) }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 80, noCache: 80, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 12, text: 12, reasoning: 0 },
      },
      warnings: [],
    }),
  });
}

describe("docs/design.md §3 worked example (maps.place)", () => {
  it("rating tick is noise by code, review spike material by code, hours no delta, reworded description → one judge call → noise", async () => {
    const fillModel = judgeModel({}); // must never be called: every field has an extractor
    const baseline = await fillRecord({ def, raw: { json: before }, model: fillModel });
    const current = await fillRecord({ def, raw: { json: after }, model: fillModel });
    expect(fillModel.doGenerateCalls).toHaveLength(0);
    expect(baseline.modelCalls + current.modelCalls).toBe(0);

    const deltas = diffRecords(baseline.record, current.record, def);
    expect(Object.keys(deltas).sort()).toEqual(["description", "rating", "review_count"]); // hours unchanged → no delta

    const code = evaluateDeltas(deltas, def);
    expect(code.rating).toMatchObject({ verdict: "noise", decidedBy: "code", reason: "rating: −0.1 < 0.2 → noise" });
    expect(code.review_count).toMatchObject({
      verdict: "material",
      decidedBy: "code",
      reason: "review_count: +158 ≥ 10 → material",
    });
    expect(code.description).toMatchObject({ verdict: "undecided", decidedBy: "code" });

    const undecided = pickUndecided(deltas, code);
    expect(Object.keys(undecided)).toEqual(["description"]); // the rating tick never reaches a model

    const model = judgeModel({ description: { verdict: "noise", reason: "Same bistro, same menu; only reworded." } });
    const judged = await judgeDeltas({
      decision: "Is this bistro pulling ahead of ours?",
      deltas: undecided,
      fieldDescriptions: describeFieldsForJudge(def, Object.keys(undecided)),
      context: [],
      model,
    });
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(judged.modelCalls).toBe(1);
    expect(judged.verdicts.description).toEqual({
      verdict: "noise",
      decidedBy: "agent",
      reason: "Same bistro, same menu; only reworded.",
    });
    // The judge saw only the description, not the rating.
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt).toContain("serving a short, seasonal menu");
    expect(prompt).not.toContain("4.3");

    const final = { ...code, ...judged.verdicts };
    expect(summariseVerdicts(final)).toBe("material"); // → exactly one change row (the review spike)
    expect(
      Object.entries(final)
        .filter(([, v]) => v.verdict === "material")
        .map(([k]) => k),
    ).toEqual(["review_count"]);
  });

  it("rules mode: the reworded description is flagged notable instead of judged", async () => {
    const baseline = await fillRecord({ def, raw: { json: before }, model: null });
    const current = await fillRecord({ def, raw: { json: { ...before, description: "Reworded." } }, model: null });
    const deltas = diffRecords(baseline.record, current.record, def);
    const code = evaluateDeltas(deltas, def);
    const judged = await judgeDeltas({
      decision: "d",
      deltas: pickUndecided(deltas, code),
      fieldDescriptions: {},
      context: [],
      model: null,
    });
    expect(summariseVerdicts({ ...code, ...judged.verdicts })).toBe("notable");
    expect(judged.modelCalls).toBe(0);
  });
});

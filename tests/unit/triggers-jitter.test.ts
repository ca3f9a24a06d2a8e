import { describe, expect, it } from "vitest";
import { diffDefinitionViews } from "@/server/triggers/get-tracker-overview";
import { jitterMs } from "@/server/triggers/jitter";

describe("jitterMs", () => {
  it("is stable per tracker, within 10% of the schedule and at most 5 minutes, and spreads trackers out", () => {
    expect(jitterMs("t1", 60)).toBe(jitterMs("t1", 60));
    const offsets = Array.from({ length: 200 }, (_, i) => jitterMs(`tracker-${i}`, 60));
    for (const o of offsets) {
      expect(o).toBeGreaterThanOrEqual(0);
      expect(o).toBeLessThanOrEqual(5 * 60_000);
    }
    expect(new Set(offsets).size).toBeGreaterThan(190);
    for (let i = 0; i < 50; i++) expect(jitterMs(`t${i}`, 15)).toBeLessThanOrEqual(90_000);
    expect(Math.max(...Array.from({ length: 200 }, (_, i) => jitterMs(`d${i}`, 1440)))).toBeLessThanOrEqual(300_000);
  });
});

describe("diffDefinitionViews", () => {
  it("names added, removed, retyped fields and changed rules", () => {
    const f = (name: string, type = "number", rule = `${name}: material on any change`) => ({
      name,
      type,
      description: name,
      rule,
    });
    expect(
      diffDefinitionViews(
        [f("price"), f("rating"), f("stock")],
        [f("price", "integer"), f("rating", "number", "rating: ignored"), f("tagline", "string")],
      ),
    ).toEqual([
      "price: type number → integer",
      "rule changed — rating: ignored (was: rating: material on any change)",
      "added tagline (string)",
      "removed stock",
    ]);
  });
});

import { describe, expect, it } from "vitest";
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

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { backoffMs, computeNextRunAt, jitterMs } from "@/server/intelligence/tracker-store";

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

  it("is the tracker id's hash as a share of the span, for a tracker asked about before (kept) and under another schedule", () => {
    const expected = (id: string, minutes: number) =>
      Math.floor(
        (createHash("sha256").update(id).digest().readUInt32BE(0) / 0xffffffff) * Math.min(minutes * 6_000, 300_000),
      );
    for (const id of ["t1", "tracker-7", "ckx9-long-id-0001"]) {
      expect(jitterMs(id, 60)).toBe(expected(id, 60));
      expect(jitterMs(id, 60)).toBe(expected(id, 60));
      expect(jitterMs(id, 15)).toBe(expected(id, 15));
      expect(jitterMs(id, 1440)).toBe(expected(id, 1440));
    }
  });
});

describe("computeNextRunAt", () => {
  const after = new Date("2030-01-01T00:00:00Z");
  const at = (consecutiveFailures: number, scheduleMinutes = 60, trackerId = "t1") =>
    computeNextRunAt({ trackerId, scheduleMinutes, after, consecutiveFailures }).getTime() - after.getTime();

  it("is the schedule plus the tracker's jitter after a success", () => {
    expect(at(0)).toBe(60 * 60_000 + jitterMs("t1", 60));
    expect(at(0, 1440, "t2")).toBe(1440 * 60_000 + jitterMs("t2", 1440));
  });

  it("is the backoff (1, 2, 4… min, capped by the schedule and 6 h) plus the same jitter after failures", () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 60))).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(backoffMs(12, 60)).toBe(60 * 60_000);
    expect(backoffMs(20, 1440)).toBe(6 * 60 * 60_000);
    expect(at(3)).toBe(240_000 + jitterMs("t1", 60));
  });
});

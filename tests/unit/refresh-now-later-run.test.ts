import { describe, expect, it } from "vitest";
import { laterRun, laterRunLine } from "@/components/trackers/refresh-now";
import type { TLastChecked } from "@/components/trackers/use-tracker-live";

/**
 * Refresh now's outcome belongs to its own run: a later run's end (heard on the page's live events after the answer)
 * takes the line over; our own run's end, and anything heard before the answer, do not — whichever stream was first.
 */
const checked = (runId: string, at: number, outcome: TLastChecked["outcome"] = "material"): TLastChecked => ({
  runId,
  outcome,
  at,
});

describe("Refresh now and a later run", () => {
  const answer = { runId: "run-a", at: 10 };

  it("a different run's end heard after the answer supersedes it", () => {
    expect(laterRun(answer, checked("run-b", 11))).toEqual(checked("run-b", 11));
  });

  it("our own run's end, heard before or after our answer, leaves it current", () => {
    expect(laterRun(answer, checked("run-a", 9, "noise"))).toBeNull();
    expect(laterRun(answer, checked("run-a", 11, "noise"))).toBeNull();
  });

  it("another run's end heard before the answer (while ours ran, or replayed on load) leaves it current", () => {
    expect(laterRun(answer, checked("run-b", 9))).toBeNull();
    expect(laterRun(answer, null)).toBeNull();
  });

  it("no answer yet (idle or running): nothing to supersede; an error is superseded by any run's later end", () => {
    expect(laterRun(null, checked("run-b", 11))).toBeNull();
    expect(laterRun({ runId: null, at: 10 }, checked("run-b", 11))).not.toBeNull();
    expect(laterRun({ runId: null, at: 10 }, checked("run-b", 9))).toBeNull();
  });

  it("says what the later run found", () => {
    expect(laterRunLine("material")).toBe("Since then, another run recorded a new change");
    expect(laterRunLine("baseline")).toBe("Since then, another run recorded a new change");
    expect(laterRunLine("unchanged")).toBe("Since then, another run found no change");
    expect(laterRunLine("noise")).toBe("Since then, another run found no change");
    expect(laterRunLine("failed")).toBe("Since then, another run failed");
  });
});

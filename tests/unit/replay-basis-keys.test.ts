import { describe, expect, it } from "vitest";
import { fillKeysOf, judgeKeysOf } from "@/server/intelligence/replay/replay-basis";
import { parseLockedDefinition } from "@/server/intelligence/tracker-store";
import { BENCH_DEFINITION } from "../bench/bench-trackers";

describe("replay keys of a locked (frozen) definition are computed once and are the same keys", () => {
  const locked = parseLockedDefinition("t-keys", 1, BENCH_DEFINITION);
  const draft = structuredClone(locked); // equal content, not frozen: keyed afresh every time

  it("equal to a draft's with the same content, per decision", () => {
    expect(Object.isFrozen(locked)).toBe(true);
    for (const decision of ["Is Acme cheaper?", "Is Acme pulling ahead?"]) {
      expect(fillKeysOf(locked, decision)).toEqual(fillKeysOf(draft, decision));
      expect(judgeKeysOf(locked, decision)).toEqual(judgeKeysOf(draft, decision));
    }
    expect(fillKeysOf(locked, "a")).not.toEqual(fillKeysOf(locked, "b"));
    expect(Object.keys(fillKeysOf(locked, "a")).sort()).toEqual(Object.keys(judgeKeysOf(locked, "a")).sort());
  });

  it("a changed rule changes only that field's judge key (drafts are never served from the cache)", () => {
    const stricter = structuredClone(draft);
    const rule = (stricter.materiality as Record<string, { relative?: number }>).price;
    if (rule?.relative === undefined) throw new Error("the bench definition has a relative price rule");
    rule.relative = 0.2;
    expect(judgeKeysOf(stricter, "a").price).not.toBe(judgeKeysOf(locked, "a").price);
    expect(judgeKeysOf(stricter, "a").rating).toBe(judgeKeysOf(locked, "a").rating);
    expect(fillKeysOf(stricter, "a")).toEqual(fillKeysOf(locked, "a"));
    // The cached keys cannot be changed by a caller.
    expect(Object.isFrozen(fillKeysOf(locked, "a"))).toBe(true);
  });
});

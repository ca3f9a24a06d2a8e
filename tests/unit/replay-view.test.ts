import { describe, expect, it } from "vitest";
import {
  countsSentence,
  DIFF_LABEL,
  errorBodyMessage,
  fieldFormats,
  parseReplayLines,
  planSentence,
  replayPeriod,
  replayRows,
  toEntryView,
} from "@/components/tracker-setup/replay-view";
import { afterLockHref } from "@/components/tracker-setup/setup-view";
import type { TReplayEntry, TReplayPlan, TReplayResult } from "@/contracts/replay";

const plan = (over: Partial<TReplayPlan> = {}): TReplayPlan => ({
  captures: 38,
  modelCallsNeeded: 0,
  reusable: 0,
  from: null,
  to: null,
  version: 2,
  lockedVersion: 1,
  modelAvailable: true,
  ...over,
});

const entry = (runId: string, capturedAt: string, over: Partial<TReplayEntry> = {}): TReplayEntry => ({
  runId,
  capturedAt,
  materiality: "material",
  delta: { price: { from: 49, to: 44 } },
  decisions: { price: { verdict: "material", decidedBy: "code", reason: "moved 10 %" } },
  definitionVersion: 1,
  wouldAsk: [],
  ...over,
});

const result = (over: Partial<TReplayResult>): TReplayResult => ({
  plan: plan(),
  recorded: [],
  replayed: [],
  added: [],
  removed: [],
  changed: [],
  counts: { recordedMaterial: 0, replayedMaterial: 0, recordedNotable: 0, replayedNotable: 0 },
  modelCalls: 0,
  wouldAsk: 0,
  summary: "",
  cancelled: false,
  ...over,
});

describe("planSentence", () => {
  it("says how many captures and model calls, and in rules mode that none will be made", () => {
    expect(planSentence(plan({ modelCallsNeeded: 2 }))).toBe("38 stored captures; 2 model calls needed.");
    expect(planSentence(plan({ captures: 1 }))).toBe("1 stored capture; no model call needed.");
    expect(planSentence(plan({ modelCallsNeeded: 2, modelAvailable: false }))).toBe(
      "38 stored captures; no model call will be made (AI is off); 2 captures would be left to the agent.",
    );
    expect(planSentence(plan({ modelCallsNeeded: 1, reusable: 3 }))).toBe(
      "38 stored captures; 1 model call needed; 3 model decisions reused from what was stored.",
    );
  });
});

describe("replayRows", () => {
  it("matches recorded and replayed entries by run, oldest first, and names each difference", () => {
    const rows = replayRows(
      result({
        recorded: [
          entry("r3", "2026-11-12T00:00:00.000Z"),
          entry("r1", "2026-11-10T00:00:00.000Z", { materiality: "baseline" }),
          entry("r2", "2026-11-11T00:00:00.000Z"),
        ],
        replayed: [
          entry("r1", "2026-11-10T00:00:00.000Z", { materiality: "baseline", definitionVersion: 2 }),
          entry("r2", "2026-11-11T00:00:00.000Z", { materiality: "notable", definitionVersion: 2 }),
          entry("r4", "2026-11-13T00:00:00.000Z", { definitionVersion: 2 }),
        ],
        added: ["r4"],
        removed: ["r3"],
        changed: ["r2"],
      }),
    );
    expect(rows.map((r) => [r.runId, r.diff, !!r.recorded, !!r.replayed])).toEqual([
      ["r1", "same", true, true],
      ["r2", "changed", true, true],
      ["r3", "removed", true, false],
      ["r4", "added", false, true],
    ]);
    expect(DIFF_LABEL.added).toMatch(/added/i);
    expect(DIFF_LABEL.removed).toMatch(/removed/i);
  });

  it("gives each column's entry its own id for the timeline's entry component", () => {
    const e = entry("r1", "2026-11-10T00:00:00.000Z");
    expect(toEntryView(e, "recorded").id).not.toBe(toEntryView(e, "replayed").id);
    expect(toEntryView(e, "replayed").capturedAt).toEqual(new Date("2026-11-10T00:00:00.000Z"));
  });
});

describe("countsSentence", () => {
  it("sums both sides and the differences", () => {
    const text = countsSentence(
      result({
        counts: { recordedMaterial: 11, replayedMaterial: 3, recordedNotable: 1, replayedNotable: 0 },
        removed: ["a", "b"],
        added: ["c"],
      }),
    );
    expect(text).toBe(
      "Recorded: 11 material, 1 notable · the draft: 3 material, 0 notable · 1 added, 2 removed, 0 changed",
    );
  });
});

describe("replayPeriod", () => {
  it("reads the two day inputs as whole local days, both included; empty = open", () => {
    const { from, to } = replayPeriod("2026-11-01", "2026-11-12");
    expect(from?.getDate()).toBe(1);
    expect([from?.getHours(), from?.getMinutes()]).toEqual([0, 0]);
    expect(to?.getDate()).toBe(12);
    expect([to?.getHours(), to?.getMinutes(), to?.getSeconds()]).toEqual([23, 59, 59]);
    expect(replayPeriod("", "")).toEqual({});
    expect(replayPeriod("not a day", "2026-13-45")).toEqual({});
  });
});

describe("parseReplayLines", () => {
  it("keeps an unfinished line for the next chunk and reads complete ones against the contract", () => {
    const a = parseReplayLines('{"type":"progress","done":1,"total":4}\n{"type":"progr');
    expect(a.events).toEqual([{ type: "progress", done: 1, total: 4 }]);
    const b = parseReplayLines(`${a.rest}ess","done":2,"total":4}\n`);
    expect(b).toEqual({ events: [{ type: "progress", done: 2, total: 4 }], rest: "" });
  });

  it("turns a line that is not a replay event into a readable error event", () => {
    const { events } = parseReplayLines('{"type":"surprise"}\nnot json\n');
    expect(events.map((e) => e.type)).toEqual(["error", "error"]);
  });
});

describe("small readers", () => {
  it("reads error bodies, field formats, and where the page goes after a lock", () => {
    expect(errorBodyMessage({ error: { message: "Too many replays — try again in 5 s." } }, 429)).toBe(
      "Too many replays — try again in 5 s.",
    );
    expect(errorBodyMessage(null, 502)).toMatch(/HTTP 502/);
    expect(fieldFormats({ fields: [{ name: "price", type: "money", currency: "USD" }, { bogus: 1 }] })).toEqual({
      price: { type: "money", currency: "USD" },
    });
    expect(fieldFormats(undefined)).toEqual({});
    expect(afterLockHref("t 1", null, 1)).toBe("/trackers/t%201");
    expect(afterLockHref("t1", 1, 2)).toBe("/trackers/t1?locked=2");
  });
});

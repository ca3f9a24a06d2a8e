import { describe, expect, it } from "vitest";
import type { TFeedItem } from "@/contracts/feed-item";
import { buildHarnessInput } from "@/server/enhancement/build-input";
import { backoffMs } from "@/server/enhancement/enhancement-manager";
import { buildEnhancementPrompt } from "@/server/enhancement/prompt";

const now = new Date("2026-11-29T15:00:00Z");
const item = (id: string, score: number, text = "x".repeat(100)): TFeedItem => ({
  id,
  sourceId: "s",
  type: "t",
  timestamp: now,
  data: { text },
  score,
  slots: { why: { description: "why", content: null } },
});
const size = (i: TFeedItem) => JSON.stringify(buildHarnessInput([i], "").items[0]).length;

describe("prompt budget: whole items, lowest-ranked first", () => {
  const items = [item("low", 0.1), item("top", 0.9), item("mid", 0.5), item("bottom", 0)];
  const one = size(items[0] as TFeedItem);

  it("keeps the best-ranked items that fit, in input order, and names the rest", () => {
    const budget = 2 + one * 2 + 1; // room for exactly two items
    const input = buildHarnessInput(items, "", budget);
    expect(input.items.map((i) => i.id)).toEqual(["top", "mid"]);
    expect(input.left).toEqual(["low", "bottom"]);
    expect(JSON.stringify(input.items).length).toBeLessThanOrEqual(budget);
    // One character less and the second item goes whole.
    expect(buildHarnessInput(items, "", budget - 1).items.map((i) => i.id)).toEqual(["top"]);
  });

  it("an item bigger than the whole budget is never sent, and does not end the list", () => {
    const huge = item("huge", 1, "y".repeat(5000));
    const input = buildHarnessInput([huge, ...items], "", 2 + one * 2 + 1);
    expect(input.items.map((i) => i.id)).toEqual(["top", "mid"]);
    expect(input.left).toContain("huge");
  });

  it("the prompt carries the items as complete JSON, whatever the budget", () => {
    for (const budget of [50, 300, 700, 24_000]) {
      const input = buildHarnessInput([item("a", 1, "ä<<<".repeat(40)), ...items], "notes", budget);
      const prompt = buildEnhancementPrompt(input, now);
      const body = prompt.split('source="feed items">>>\n')[1]?.split("\n<<<END UNTRUSTED DATA")[0] ?? "";
      expect(prompt).not.toContain("truncated");
      expect(body.startsWith("[")).toBe(true);
      expect(body.endsWith("]")).toBe(true);
      expect(body.length).toBeLessThanOrEqual(budget + 50);
      expect((JSON.parse(body) as { id: string }[]).map((i) => i.id)).toEqual(input.items.map((i) => i.id));
    }
  });
});

describe("backoff after failed calls", () => {
  it("doubles from one minute and is capped", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => backoffMs(n) / 60_000)).toEqual([1, 2, 4, 8, 16, 32, 32, 32]);
  });
});

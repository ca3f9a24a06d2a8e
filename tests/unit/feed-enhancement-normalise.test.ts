import { describe, expect, it } from "vitest";
import { validateFeedSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import { buildHarnessInput, hashHarnessInput } from "@/server/enhancement/build-input";
import { normaliseEnhancement } from "@/server/enhancement/normalise-enhancement";

const now = new Date("2026-11-29T15:00:00Z");
const items: TFeedItem[] = [
  {
    id: "a",
    sourceId: "s",
    type: "t",
    timestamp: now,
    data: { x: 1 },
    slots: { why: { description: "why", content: null } },
  },
  { id: "b", sourceId: "s", type: "t", timestamp: now, data: {} },
];

describe("enhancement input and output", () => {
  it("sends only slotted items, with descriptions; the hash covers data, slots and memory", () => {
    const input = buildHarnessInput(items, "notes");
    expect(input.items).toEqual([{ id: "a", type: "t", data: { x: 1 }, slots: { why: "why" } }]);
    const h = hashHarnessInput(input);
    expect(hashHarnessInput(buildHarnessInput(items, "notes"))).toBe(h);
    expect(hashHarnessInput(buildHarnessInput(items, "other notes"))).not.toBe(h);
    const changed = [{ ...items[0], data: { x: 2 } } as TFeedItem, items[1] as TFeedItem];
    expect(hashHarnessInput(buildHarnessInput(changed, "notes"))).not.toBe(h);
  });

  it("drops unknown ids/slots and synthetic items whose UI fails the catalog", () => {
    const input = buildHarnessInput(items, "");
    const good = JSON.stringify({
      root: "r",
      elements: { r: { type: "Text", props: { text: "Brief" }, children: [] } },
    });
    const { result, dropped } = normaliseEnhancement(
      {
        slotFills: [
          { itemId: "a", slot: "why", text: "<script>alert(1)</script>" },
          { itemId: "a", slot: "nope", text: "x" },
          { itemId: "zzz", slot: "why", text: "x" },
        ],
        syntheticItems: [
          { id: "ok", type: "briefing", uiJson: good },
          {
            id: "bad-type",
            type: "x",
            uiJson: JSON.stringify({ root: "r", elements: { r: { type: "Iframe", props: {}, children: [] } } }),
          },
          { id: "bad-json", type: "x", uiJson: "{" },
          {
            id: "bad-child",
            type: "x",
            uiJson: JSON.stringify({ root: "r", elements: { r: { type: "Stack", props: {}, children: ["gone"] } } }),
          },
        ],
        suppress: ["b", "ghost"],
        rankingHints: [
          { itemId: "b", delta: 0.5 },
          { itemId: "ghost", delta: 1 },
        ],
      },
      input,
      new Set(["a", "b"]),
    );
    // Text is kept verbatim (it renders as text, never HTML).
    expect(result.slotFills).toEqual({ a: { why: "<script>alert(1)</script>" } });
    expect(result.syntheticItems.map((s) => s.id)).toEqual(["synthetic:ok"]);
    expect(result.suppress).toEqual(["b"]);
    expect(result.rankingHints).toEqual({ b: 0.5 });
    expect(dropped.filter((d) => d.kind === "synthetic")).toHaveLength(3);
  });

  it("catalog rejects wrong props and accepts a source layout", () => {
    expect(
      validateFeedSpec({ root: "r", elements: { r: { type: "Heading", props: { text: 5 }, children: [] } } }).ok,
    ).toBe(false);
    expect(
      validateFeedSpec({ root: "r", elements: { r: { type: "Slot", props: { name: "why" }, children: [] } } }).ok,
    ).toBe(true);
  });
});

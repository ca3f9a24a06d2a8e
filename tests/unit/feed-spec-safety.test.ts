import { describe, expect, it } from "vitest";
import { validateFeedSpec } from "@/contracts/feed-catalog";
import type { TFeedSpec } from "@/contracts/feed-item";
import { feedHref } from "@/contracts/feed-link";
import { buildHarnessInput } from "@/server/enhancement/build-input";
import { normaliseEnhancement } from "@/server/enhancement/normalise-enhancement";
import { keepSafeSynthetic, MAX_SYNTHETIC } from "@/server/enhancement/synthetic-spec";

const el = (type: string, props: Record<string, unknown>, children: string[] = []) => ({ type, props, children });
const text = (t: string) => el("Text", { text: t });
const link = (href: string) => el("Link", { href, label: "open" });
const problem = (spec: unknown) => {
  const check = validateFeedSpec(spec);
  return check.ok ? null : check.problem;
};

describe("feed spec: one finite tree under root", () => {
  it("accepts a plain tree", () => {
    expect(problem({ root: "r", elements: { r: el("Stack", {}, ["a", "b"]), a: text("x"), b: text("y") } })).toBeNull();
  });

  it("rejects a cycle between two elements (the spec that hung the browser)", () => {
    const spec = { root: "a", elements: { a: el("Stack", {}, ["b"]), b: el("Stack", {}, ["a"]) } };
    expect(problem(spec)).toMatch(/twice/);
  });

  it("rejects an element that is its own child", () => {
    expect(problem({ root: "a", elements: { a: el("Stack", {}, ["a"]) } })).toMatch(/twice/);
  });

  it("rejects a shared child (a diamond) and a child listed twice", () => {
    const diamond = {
      root: "r",
      elements: { r: el("Stack", {}, ["a", "b"]), a: el("Stack", {}, ["c"]), b: el("Stack", {}, ["c"]), c: text("c") },
    };
    expect(problem(diamond)).toMatch(/twice/);
    expect(problem({ root: "r", elements: { r: el("Stack", {}, ["a", "a"]), a: text("a") } })).toMatch(/twice/);
  });

  it("rejects unreachable elements, missing children and a missing root", () => {
    expect(problem({ root: "r", elements: { r: text("r"), stray: text("s") } })).toMatch(/"stray" is not reachable/);
    expect(problem({ root: "r", elements: { r: el("Stack", {}, ["gone"]) } })).toMatch(/missing child "gone"/);
    expect(problem({ root: "nope", elements: { r: text("r") } })).toMatch(/root "nope"/);
    // Prototype keys are not elements.
    expect(problem({ root: "toString", elements: { r: text("r") } })).toMatch(/root "toString"/);
  });

  it("rejects children on a component without slots", () => {
    expect(problem({ root: "r", elements: { r: el("Text", { text: "t" }, ["a"]), a: text("a") } })).toMatch(
      /cannot have children/,
    );
  });

  it("caps depth and element count", () => {
    const chain: TFeedSpec["elements"] = {};
    for (let i = 0; i < 12; i++) chain[`e${i}`] = el("Stack", {}, i < 11 ? [`e${i + 1}`] : []);
    expect(problem({ root: "e0", elements: chain })).toMatch(/deeper than 8/);
    const wide: TFeedSpec["elements"] = { r: el("Stack", {}, []) };
    for (let i = 0; i < 250; i++) {
      wide[`t${i}`] = text(String(i));
      wide.r?.children.push(`t${i}`);
    }
    expect(problem({ root: "r", elements: wide })).toMatch(/251 elements/);
  });
});

describe("feed links", () => {
  it.each([
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    " javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:x",
    "/\\evil.example",
    "\\\\evil.example/x",
    "//evil.example/x",
    "/\\/evil.example",
    "https://user:pw@example.com/",
    "trackers/1",
    "",
  ])("refuses %j (validation and renderer)", (href) => {
    expect(feedHref(href)).toBeNull();
    expect(problem({ root: "r", elements: { r: link(href) } })).toMatch(/href/);
  });

  it("accepts in-app paths (normalised) and http(s) URLs", () => {
    expect(feedHref("/trackers/abc?x=1#h")).toEqual({ kind: "app", href: "/trackers/abc?x=1#h" });
    expect(feedHref("/trackers\\abc")).toEqual({ kind: "app", href: "/trackers/abc" });
    expect(feedHref("/a/../../b")).toEqual({ kind: "app", href: "/b" });
    expect(feedHref("https://example.com/p")).toEqual({ kind: "external", href: "https://example.com/p" });
    expect(feedHref("http://example.com")).toEqual({ kind: "external", href: "http://example.com/" });
    expect(problem({ root: "r", elements: { r: link("/trackers/abc") } })).toBeNull();
  });
});

describe("synthetic cards: held to what the prompt allows, in one check", () => {
  const ok = { root: "r", elements: { r: el("Stack", {}, ["h"]), h: el("Heading", { text: "Brief" }) } };

  it("refuses components outside the prompt's list, deep or large trees, and more than the allowed count", () => {
    const { kept, dropped } = keepSafeSynthetic([
      { id: "synthetic:spark", type: "b", ui: { root: "r", elements: { r: el("Sparkline", { values: [1, 2] }) } } },
      { id: "synthetic:a", type: "b", ui: ok },
      { id: "synthetic:a", type: "b", ui: ok },
      {
        id: "synthetic:deep",
        type: "b",
        ui: {
          root: "a",
          elements: {
            a: el("Stack", {}, ["b"]),
            b: el("Stack", {}, ["c"]),
            c: el("Stack", {}, ["d"]),
            d: el("Stack", {}, ["e"]),
            e: text("e"),
          },
        },
      },
      { id: "synthetic:b", type: "b", ui: ok },
      { id: "synthetic:c", type: "b", ui: ok },
    ]);
    expect(kept.map((k) => k.id)).toEqual(["synthetic:a", "synthetic:b"]);
    expect(kept).toHaveLength(MAX_SYNTHETIC);
    expect(dropped.map((d) => d.id)).toEqual(["synthetic:spark", "synthetic:a", "synthetic:deep", "synthetic:c"]);
    expect(dropped[0]?.reason).toMatch(/Sparkline is not allowed/);
    expect(dropped[1]?.reason).toMatch(/id already used/);
    expect(dropped[2]?.reason).toMatch(/deeper than 3/);
    expect(dropped[3]?.reason).toMatch(/more than 2/);
  });

  it("the model's answer: a cyclic card and a javascript: link are dropped, a safe link card kept", () => {
    const input = buildHarnessInput([], "");
    const spec = (s: unknown) => JSON.stringify(s);
    const { result, dropped } = normaliseEnhancement(
      {
        slotFills: [],
        syntheticItems: [
          {
            id: "loop",
            type: "b",
            uiJson: spec({ root: "a", elements: { a: el("Stack", {}, ["b"]), b: el("Stack", {}, ["a"]) } }),
          },
          { id: "js", type: "b", uiJson: spec({ root: "r", elements: { r: link("javascript:alert(1)") } }) },
          { id: "slash", type: "b", uiJson: spec({ root: "r", elements: { r: link("/\\evil.example") } }) },
          { id: "fine", type: "b", uiJson: spec({ root: "r", elements: { r: link("/trackers/t1") } }) },
        ],
        suppress: [],
        rankingHints: [],
      },
      input,
      new Set(),
    );
    expect(result.syntheticItems.map((s) => s.id)).toEqual(["synthetic:fine"]);
    expect(dropped.map((d) => d.reason)).toEqual([
      expect.stringMatching(/^synthetic:loop: .*twice/),
      expect.stringMatching(/^synthetic:js: .*href/),
      expect.stringMatching(/^synthetic:slash: .*href/),
    ]);
  });
});

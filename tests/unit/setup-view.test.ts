import { describe, expect, it } from "vitest";
import {
  cardDraft,
  hasLocked,
  latestSample,
  readableError,
  streamingDraft,
  toBubbles,
} from "@/components/tracker-setup/setup-view";
import type { TDraftView, TSetupUIMessage } from "@/components/tracker-setup/types";

const view = (...names: string[]): TDraftView => ({
  fields: names.map((name) => ({ name, type: "number", unit: null, description: "", extractor: null })),
  identity: null,
  rules: names.map((n) => `${n}: the agent decides`),
});
const saved = (...names: string[]) => ({ view: view(...names), version: 1, definition: {} });

describe("setup view", () => {
  it("shows a first draft as it streams, but keeps the saved draft until a revision has caught up", () => {
    expect(cardDraft(view(), null)).toEqual({ view: null, streaming: true });
    expect(cardDraft(view("a"), null)).toEqual({ view: view("a"), streaming: true });
    expect(cardDraft(view("a"), saved("a", "b", "c"))).toEqual({ view: view("a", "b", "c"), streaming: true });
    expect(cardDraft(view("a", "b", "c", "d"), saved("a", "b", "c"))).toEqual({
      view: view("a", "b", "c", "d"),
      streaming: true,
    });
    expect(cardDraft(null, saved("a"))).toEqual({ view: view("a"), streaming: false });
    expect(cardDraft(null, null)).toEqual({ view: null, streaming: false });
  });

  it("reads bubbles, the streaming draft, the sample and a lock from UI messages", () => {
    const messages: TSetupUIMessage[] = [
      { id: "u", role: "user", parts: [{ type: "text", text: "Watch x" }] },
      {
        id: "a",
        role: "assistant",
        metadata: { kind: "question" },
        parts: [
          { type: "data-error", id: "e", data: { message: "could not read x" } },
          { type: "data-sample", id: "sample", data: { target: "x", document: { title: "X" } } },
          { type: "text", text: "Which other page?" },
          { type: "data-draft", id: "draft", data: { status: "streaming", view: view("a") } },
        ],
      },
    ];
    expect(toBubbles(messages)).toEqual([
      { key: "u:0", role: "user", kind: "text", text: "Watch x" },
      { key: "a:0", role: "assistant", kind: "error", text: "could not read x" },
      { key: "a:2", role: "assistant", kind: "question", text: "Which other page?" },
    ]);
    expect(streamingDraft(messages[1])).toEqual(view("a"));
    expect(streamingDraft(messages[0])).toBeNull();
    expect(latestSample(messages)).toEqual({ target: "x", document: { title: "X" } });
    expect(hasLocked(messages)).toBe(false);
    expect(
      hasLocked([
        { id: "l", role: "assistant", parts: [{ type: "data-locked", data: { trackerId: "t", version: 1 } }] },
      ]),
    ).toBe(true);
  });

  it("turns a refused turn's JSON error body into its message", () => {
    expect(readableError(new Error('{"error":{"code":"CONFLICT","message":"Still answering."}}'))).toBe(
      "Still answering.",
    );
    expect(readableError(new Error("Failed to fetch"))).toBe("Failed to fetch");
  });
});

import { UNTRUSTED_CONTENT_RULES, wrapUntrusted } from "../ai";
import { BRIEFING_MAX_LINES, BRIEFING_TYPE } from "./briefing-text";
import type { THarnessInput } from "./build-input";
import { MAX_SYNTHETIC, SYNTHETIC_COMPONENTS, SYNTHETIC_SPEC_LIMITS } from "./synthetic-spec";

export const ENHANCEMENT_SCHEMA_NAME = "feed_enhancement";

export const ENHANCEMENT_INSTRUCTIONS = [
  "You write short connecting text for a personal feed. Each input item has named slots with a description",
  "of what the slot wants. Fill only slots you can fill usefully from the items and the user's notes; never",
  "invent facts. Slot text is plain text (no HTML, no markdown), at most two short sentences.",
  `Optionally add at most ${MAX_SYNTHETIC} synthetic items that connect several items; their uiJson is a json-render`,
  'spec string {"root": key, "elements": {key: {"type", "props", "children": []}}}: one tree under root (each',
  `element the child of exactly one other), at most ${SYNTHETIC_SPEC_LIMITS.maxElements} elements and`,
  `${SYNTHETIC_SPEC_LIMITS.maxDepth} levels deep, using only the components ${SYNTHETIC_COMPONENTS.join(", ")};`,
  'Stack {direction?: "vertical"|"horizontal"} holds children, Heading {text}, Text {text}, Link {href, label}',
  "where href is an in-app path like /trackers/ID or an http(s) URL.",
  `An item of type ${BRIEFING_TYPE} is the day's briefing, the feed's top card: write its slot as at most`,
  `${BRIEFING_MAX_LINES} short lines (one per line) from the other items and the user's notes, and do not add a`,
  "synthetic item that repeats it.",
  "Use suppress only for items that duplicate another item. Use rankingHints sparingly.",
  UNTRUSTED_CONTENT_RULES,
].join(" ");

/** Item data comes from web pages and calendars: it is wrapped as untrusted. */
export function buildEnhancementPrompt(input: THarnessInput, now: Date): string {
  const items = JSON.stringify(input.items);
  return [
    `Current time: ${now.toISOString()}`,
    "User notes:",
    wrapUntrusted(input.userMemory || "(none)", { source: "user memory notes", maxChars: 2000 }),
    "Feed items (JSON):",
    // buildHarnessInput already met the budget by whole items; the wrapper must not cut the JSON again
    // (its NFKC folding expands a character to at most 18, hence the headroom).
    wrapUntrusted(items, { source: "feed items", maxChars: items.length * 18 + 64 }),
  ].join("\n");
}

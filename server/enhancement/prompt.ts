import { UNTRUSTED_CONTENT_RULES, wrapUntrusted } from "@/server/ai";
import type { THarnessInput } from "./build-input";

export const ENHANCEMENT_SCHEMA_NAME = "feed_enhancement";

export const ENHANCEMENT_INSTRUCTIONS = [
  "You write short connecting text for a personal feed. Each input item has named slots with a description",
  "of what the slot wants. Fill only slots you can fill usefully from the items and the user's notes; never",
  "invent facts. Slot text is plain text (no HTML, no markdown), at most two short sentences.",
  "Optionally add at most two synthetic items that connect several items; their uiJson is a json-render spec",
  'string {"root": key, "elements": {key: {"type", "props", "children": []}}} using only the components',
  "Stack, Heading, Text. Use suppress only for items that duplicate another item. Use rankingHints sparingly.",
  UNTRUSTED_CONTENT_RULES,
].join(" ");

/** Item data comes from web pages and calendars: it is wrapped as untrusted. */
export function buildEnhancementPrompt(input: THarnessInput, now: Date): string {
  return [
    `Current time: ${now.toISOString()}`,
    "User notes:",
    wrapUntrusted(input.userMemory || "(none)", { source: "user memory notes", maxChars: 2000 }),
    "Feed items (JSON):",
    wrapUntrusted(JSON.stringify(input.items), { source: "feed items", maxChars: 30_000 }),
  ].join("\n");
}

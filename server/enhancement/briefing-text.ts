/**
 * The model's part of the briefing card (docs/feed.md, "The briefing card"): the feed's briefing source makes a card
 * of this type with a slot for the day's briefing, and the model writes the seed design's synthetic briefing there
 * (docs/design.md §6) rather than as a card of its own, so the card keeps its date, its place at the top and its
 * rule-based fallback. The enhancer holds that text to the card's size and leaves the card's ranking to code.
 */

export const BRIEFING_TYPE = "briefing";
export const BRIEFING_MAX_LINES = 2;
const MAX_LINE_CHARS = 240;

/** At most two non-empty lines, each cut to a line's length; "" when nothing is left. */
export function clampBriefingText(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter(Boolean)
    .slice(0, BRIEFING_MAX_LINES)
    .map((line) => (line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS - 1).trimEnd()}…`))
    .join("\n");
}

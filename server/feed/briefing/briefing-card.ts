import { createHash } from "node:crypto";
import { buildSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import { BRIEFING_TYPE } from "../../enhancement/briefing-text";
import { cardKey, keyCard } from "../card-memo";
import type { TBriefing } from "./build-briefing";

export { BRIEFING_TYPE };
/** The slot the model writes its briefing into. */
export const BRIEFING_SLOT = "briefing";

/** What the model is asked for: the design's synthetic briefing (docs/design.md §6), as this card's slot. */
const SLOT_DESCRIPTION =
  "The day's briefing, at most two short lines (one per line, plain text): what changed that matters since " +
  "yesterday and what today holds, connected to the user's decisions and notes. `data.lines` is the rule-based " +
  "version; say it better, never invent facts.";

/**
 * The briefing as the feed's top card: its date as the title, then the `Briefing` element, which shows the model's
 * text from the slot when there is some and these lines otherwise. The id carries a hash of the card's content, so a
 * model text written for other inputs (yesterday, before a new change) belongs to another id and is never merged
 * into this card: the rules lines show until the enhancement for these inputs has run (docs/feed.md). Memoised by
 * that content key like every card (card-memo.ts).
 */
export function briefingItem(briefing: TBriefing, now: Date): TFeedItem {
  // `data` is built from every input the card shows (lines included), in a fixed order: it is the content key.
  const key = cardKey(BRIEFING_TYPE, [briefing.day, JSON.stringify(briefing.data)]);
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 16);
  const item: TFeedItem = {
    id: `briefing:${briefing.day}:${hash}`,
    sourceId: "briefing",
    type: BRIEFING_TYPE,
    timestamp: now,
    data: briefing.data,
    // The highest a source gives; the ordering also pins this source's card first (docs/feed.md, "The briefing card").
    signals: { urgency: 1, timeRelevance: "imminent" },
    ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, [
      { key: "title", type: "Heading", props: { text: briefing.date } },
      { key: "brief", type: "Briefing", props: { lines: briefing.lines, slot: BRIEFING_SLOT } },
    ]),
    slots: { [BRIEFING_SLOT]: { description: SLOT_DESCRIPTION, content: null } },
  };
  return keyCard(item, key);
}

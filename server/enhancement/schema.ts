import { z } from "zod";
import { ZFeedSpecSchema } from "@/contracts/feed-item";
import { MAX_SYNTHETIC } from "./synthetic-spec";

/**
 * What the model returns. Lists instead of maps and the synthetic UI as a JSON string keep the
 * schema valid for strict structured output; `normaliseEnhancement` turns it into TEnhancementResult.
 */
export const ZEnhancementOutputSchema = z.object({
  slotFills: z
    .array(
      z.object({
        itemId: z.string().describe("id of an item from the input"),
        slot: z.string().describe("name of one of that item's slots"),
        text: z.string().describe("plain text for the slot, one or two short sentences; no HTML or markdown"),
      }),
    )
    .describe("Text for slots you can fill usefully; leave out slots you have nothing useful for"),
  syntheticItems: z
    .array(
      z.object({
        id: z.string().describe("a new unique id, e.g. briefing-morning"),
        type: z.string().describe("kind of item, e.g. briefing"),
        uiJson: z
          .string()
          .describe('a json-render spec as a JSON string: {"root": key, "elements": {key: {type, props, children}}}'),
      }),
    )
    .describe(`At most ${MAX_SYNTHETIC} new cards that connect several items; usually none`),
  suppress: z.array(z.string()).describe("ids of items that are redundant and should be hidden"),
  rankingHints: z
    .array(z.object({ itemId: z.string(), delta: z.number().min(-1).max(1) }))
    .describe("Move items up (positive) or down (negative)"),
});
export type TEnhancementOutput = z.infer<typeof ZEnhancementOutputSchema>;

/** Stored in FeedEnhancement.result and merged into feeds. */
export const ZEnhancementResultSchema = z.object({
  slotFills: z.record(z.string(), z.record(z.string(), z.string().nullable())),
  syntheticItems: z.array(z.object({ id: z.string(), type: z.string(), ui: ZFeedSpecSchema })),
  suppress: z.array(z.string()),
  rankingHints: z.record(z.string(), z.number()),
});
export type TEnhancementResult = z.infer<typeof ZEnhancementResultSchema>;

export const EMPTY_ENHANCEMENT: TEnhancementResult = {
  slotFills: {},
  syntheticItems: [],
  suppress: [],
  rankingHints: {},
};

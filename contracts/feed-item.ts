import { z } from "zod";

/** A json-render flat spec: `{root, elements}`; validated against the feed catalog separately. */
export const ZFeedSpecSchema = z.object({
  root: z.string(),
  elements: z.record(
    z.string(),
    z.object({
      type: z.string(),
      props: z.record(z.string(), z.unknown()),
      children: z.array(z.string()),
    }),
  ),
});
export type TFeedSpec = z.infer<typeof ZFeedSpecSchema>;

export const ZFeedSlotSchema = z.object({
  /** Tells the model what this slot wants; the source writes it. */
  description: z.string(),
  /** Model-filled plain text, null until enhanced. */
  content: z.string().nullable(),
});
export type TFeedSlot = z.infer<typeof ZFeedSlotSchema>;

export const ZTimeRelevanceSchema = z.enum(["imminent", "upcoming", "ambient"]);

export const ZFeedItemSchema = z.object({
  id: z.string().min(1),
  sourceId: z.string(),
  type: z.string(),
  timestamp: z.coerce.date(),
  data: z.record(z.string(), z.unknown()),
  signals: z.object({ urgency: z.number().min(0).max(1), timeRelevance: ZTimeRelevanceSchema }).optional(),
  ui: ZFeedSpecSchema.optional(),
  slots: z.record(z.string(), ZFeedSlotSchema).optional(),
  /** Set by the group post-processor: items sharing a key render together. */
  groupKey: z.string().optional(),
  /** Set by post-processors/ranking; higher first. */
  score: z.number().optional(),
  synthetic: z.boolean().optional(),
});
export type TFeedItem = z.infer<typeof ZFeedItemSchema>;

export type TSourceError = { sourceId: string; message: string };

/** What the page receives. */
export type TFeed = {
  items: TFeedItem[];
  errors: TSourceError[];
  generatedAt: Date;
  /** Changes after this are "new since you last looked" (the previous visit's last view); null on a first visit. */
  seenSince: Date | null;
  enhancement: { state: "off" | "cached" | "none"; inputHash: string | null };
};

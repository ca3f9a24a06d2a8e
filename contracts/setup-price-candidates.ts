import { z } from "zod";

/**
 * The prices a multi-plan or multi-variant sample offers, as the setup card lists them so the person can point at the
 * right one (docs/intelligence.md): each with its name, its value on the sample, where it sits in
 * words, and whether the draft's main price field watches it. Client-safe.
 */
export const ZPriceCandidateViewSchema = z.object({
  /** Its place in the sample's list: what `setup.choosePrice` takes. */
  index: z.number().int().min(0),
  label: z.string(),
  /** As the sample shows it ("$49/mo", "22,90 €"). */
  text: z.string(),
  /** "the price under the heading “Pro”". */
  where: z.string(),
  /** Shown on the page, not a hidden toggle price or a select option. */
  shown: z.boolean(),
  /** The draft's main price field reads this one. */
  watched: z.boolean(),
});
export type TPriceCandidateView = z.infer<typeof ZPriceCandidateViewSchema>;

export const ZChoosePriceRequestSchema = z.object({
  sessionId: z.string().min(1).max(100),
  index: z.number().int().min(0).max(1000),
});

import { z } from "zod";

/**
 * The page view of a setup (docs/page-view.md): the sample page made inert, with what each field of the draft
 * reads on it and the prices the draft passed over, each pointing at the page's elements by their number
 * (`data-bw-n`). Pointing at an element binds it to a field. Client-safe.
 */

export const ZPageViewFieldSchema = z.object({
  name: z.string(),
  type: z.string(),
  /** What the field reads on this page, as text; null when it reads nothing here. */
  reads: z.string().nullable(),
  /** Where it reads, in words ("the price under the heading “Pro”", "CSS p.price"). */
  where: z.string(),
  /** The elements it reads (outlined and labelled); empty when it reads structured data or nothing. */
  elements: z.array(z.number().int()),
  /**
   * A field that read on the page before and reads nothing now: the element that shows what it read then, found on
   * the page now, proposed as its new anchor ("Use it" binds it like a click would). Null when none or several do.
   */
  proposal: z
    .object({
      element: z.number().int(),
      text: z.string(),
      where: z.string(),
      /** The agent's reason, when the agent proposed it (model mode); null when code found the same text. */
      why: z.string().nullable(),
    })
    .nullable(),
});

export const ZPageViewCandidateSchema = z.object({
  /** Its place in the sample's price list (what `setup.choosePrice` takes). */
  index: z.number().int(),
  label: z.string(),
  text: z.string(),
  where: z.string(),
  /** The draft's main price field reads this one. */
  watched: z.boolean(),
  elements: z.array(z.number().int()),
});

/** A copy element's box on the page's picture, in the picture's pixels. */
export const ZPageBoxSchema = z.object({
  element: z.number().int(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});
export type TPageBox = z.infer<typeof ZPageBoxSchema>;

/**
 * The page photographed by the server's browser (when one is configured): its size, when it was taken (the
 * picture's version) and the boxes of the elements the view marks. A click on it is asked of `setup.elementAt`.
 */
export const ZPageShotSchema = z.object({
  width: z.number().int(),
  height: z.number().int(),
  takenAt: z.string(),
  boxes: z.array(ZPageBoxSchema),
});
export type TPageShot = z.infer<typeof ZPageShotSchema>;

export const ZPageViewSchema = z.object({
  /** The page shown: as read last, or as it was before the last re-read. */
  which: z.enum(["current", "earlier"]),
  url: z.string(),
  readAt: z.string(),
  /** The page did not fit and its end is missing. */
  truncated: z.boolean(),
  /** A page read before the last re-read exists (where a field used to be). */
  hasEarlier: z.boolean(),
  /** Inert HTML: no scripts, no addresses that load anything; every element numbered. */
  html: z.string(),
  fields: z.array(ZPageViewFieldSchema),
  candidates: z.array(ZPageViewCandidateSchema),
  /** The current page's picture; null on Before, without a browser, or when it could not be taken. */
  shot: ZPageShotSchema.nullable(),
});
export type TPageView = z.infer<typeof ZPageViewSchema>;
export type TPageViewField = z.infer<typeof ZPageViewFieldSchema>;

export const ZPageViewRequestSchema = z.object({
  sessionId: z.string().min(1).max(100),
  which: z.enum(["current", "earlier"]).default("current"),
});

export const ZPointAtElementRequestSchema = z.object({
  sessionId: z.string().min(1).max(100),
  /** The element's number in the page view. */
  element: z.number().int().min(0).max(10_000_000),
  /** The field it becomes: an existing field's name, or null for a new field. */
  field: z.string().min(1).max(48).nullable(),
});

export const ZElementAtRequestSchema = z.object({
  sessionId: z.string().min(1).max(100),
  /** A point on the page's picture, in its pixels. */
  x: z.number().min(0).max(100_000),
  y: z.number().min(0).max(100_000),
});

/** The innermost element under a point of the picture, and its text (what the pick form shows). */
export const ZElementAtResponseSchema = z
  .object({ element: z.number().int(), text: z.string(), box: ZPageBoxSchema })
  .nullable();

export const ZPageShotRequestSchema = z.object({ sessionId: z.string().min(1).max(100) });
/** The picture as a data URL (JPEG), or null when the page has none. */
export const ZPageShotImageSchema = z.object({ takenAt: z.string(), dataUrl: z.string() }).nullable();

/** The element attribute that numbers the page view's elements. */
export const PAGE_ELEMENT_ATTRIBUTE = "data-bw-n";

/** A proposal the agent made after a re-read, as kept with the page (the field it is for, then the same as above). */
export const ZStoredProposalSchema = z.object({
  field: z.string(),
  element: z.number().int(),
  text: z.string(),
  where: z.string(),
  why: z.string(),
});
export type TStoredProposal = z.infer<typeof ZStoredProposalSchema>;

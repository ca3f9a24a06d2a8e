import { z } from "zod";
import { type TTimelineEntry, ZChangeMaterialitySchema } from "@/contracts/timeline";
import type { TDb, TTx } from "../db";
import { AppError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { decodeTimelineCursor } from "./decode-timeline-cursor";
import { encodeTimelineCursor } from "./encode-timeline-cursor";
import { toTimelineEntry } from "./to-timeline-entry";

export const TIMELINE_DEFAULT_LIMIT = 50;
export const TIMELINE_MAX_LIMIT = 200;

const ZValidDate = z.date().refine((d) => !Number.isNaN(d.getTime()), "is not a valid date");

const ZQueryTimelineInputSchema = z
  .object({
    trackerId: z.string().min(1),
    /** Inclusive. */
    from: ZValidDate.optional(),
    /** Exclusive: [from, to) so adjacent windows never share a row. */
    to: ZValidDate.optional(),
    cursor: z.string().optional(),
    /** Values above the maximum are clamped to it. */
    limit: z
      .number()
      .int()
      .min(1)
      .default(TIMELINE_DEFAULT_LIMIT)
      .transform((n) => Math.min(n, TIMELINE_MAX_LIMIT)),
    order: z.enum(["asc", "desc"]).default("desc"),
    materiality: z.array(ZChangeMaterialitySchema).optional(),
  })
  .refine((q) => !(q.from && q.to && q.from > q.to), { message: "from must not be after to", path: ["from"] });

export type TQueryTimelineInput = z.input<typeof ZQueryTimelineInputSchema>;
export type TTimelinePage = { items: TTimelineEntry[]; nextCursor: string | null };

/**
 * A page of a tracker's timeline ordered by (capturedAt, id), newest first by default. `nextCursor`
 * continues after the last item in the same order (null on the last page); keyset paging, so rows
 * inserted meanwhile neither repeat nor shift items across pages. Ownership is the caller's job
 * (getTracker first); this is the state layer.
 */
export async function queryTimeline(db: TDb | TTx, input: TQueryTimelineInput): Promise<TTimelinePage> {
  const parsed = ZQueryTimelineInputSchema.safeParse(input);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "query"}: ${i.message}`).join("; ");
    throw new AppError("BAD_REQUEST", `Invalid timeline query: ${detail}`);
  }
  const q = parsed.data;
  const after = q.cursor === undefined ? undefined : decodeTimelineCursor(q.cursor);
  const cmp = q.order === "desc" ? "lt" : "gt";

  const and: Prisma.EntityChangeWhereInput[] = [{ trackerId: q.trackerId }];
  if (q.from) and.push({ capturedAt: { gte: q.from } });
  if (q.to) and.push({ capturedAt: { lt: q.to } });
  if (q.materiality) and.push({ materiality: { in: q.materiality } });
  if (after) {
    and.push({
      OR: [{ capturedAt: { [cmp]: after.capturedAt } }, { capturedAt: after.capturedAt, id: { [cmp]: after.id } }],
    });
  }

  const rows = await db.entityChange.findMany({
    where: { AND: and },
    orderBy: [{ capturedAt: q.order }, { id: q.order }],
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    items: page.map(toTimelineEntry),
    nextCursor: rows.length > q.limit && last ? encodeTimelineCursor(last) : null,
  };
}

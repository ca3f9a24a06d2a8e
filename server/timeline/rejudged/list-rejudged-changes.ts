import { type TRejudgedHistory, ZRejudgedEntrySchema } from "@/contracts/rejudged";
import type { TDb } from "../../db";
import { AppError } from "../../errors";

/** The newest re-judged history of a tracker (its highest version), oldest entry first. Ownership: the caller's. */
export async function listRejudgedChanges(db: TDb, trackerId: string, limit = 200): Promise<TRejudgedHistory> {
  const newest = await db.rejudgedChange.findFirst({
    where: { trackerId },
    orderBy: [{ version: "desc" }, { createdAt: "desc" }],
    select: { version: true, createdAt: true },
  });
  if (!newest) return { version: null, at: null, entries: [] };
  const rows = await db.rejudgedChange.findMany({
    where: { trackerId, version: newest.version },
    orderBy: [{ capturedAt: "asc" }, { id: "asc" }],
    take: limit,
  });
  const entries = rows.map((row) => {
    const parsed = ZRejudgedEntrySchema.safeParse(row);
    if (!parsed.success)
      throw new AppError("INTERNAL", `Re-judged entry ${row.id} is stored in an unexpected shape.`, {
        cause: parsed.error,
      });
    return parsed.data;
  });
  return { version: newest.version, at: newest.createdAt, entries };
}

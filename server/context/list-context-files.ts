import type { TListContextFilesResponse } from "@/contracts/context-files";
import type { TDb } from "../db";
import { CONTEXT_FILE_VIEW_SELECT, citationCounts, toContextFileView } from "./context-file-view";
import { contextLimitsFromEnv, type TContextLimits } from "./context-limits";
import { contextFileUses } from "./file-bindings";
import { assertOwnedTracker } from "./owned-tracker";

/**
 * The tracker page's "Context files": the person's files on their tracker, newest first, with the limits, and per
 * file the locked rules that read a value from it (so deleting or replacing it says so first).
 */
export async function listContextFiles(
  db: TDb,
  input: { userId: string; trackerId: string; limits?: TContextLimits },
): Promise<TListContextFilesResponse> {
  await assertOwnedTracker(db, input);
  const limits = input.limits ?? contextLimitsFromEnv();
  const [rows, cited, uses] = await Promise.all([
    db.contextFile.findMany({
      where: { userId: input.userId, trackerId: input.trackerId },
      select: CONTEXT_FILE_VIEW_SELECT,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    }),
    citationCounts(db, input),
    contextFileUses(db, input),
  ]);
  return {
    files: rows.map((row) => toContextFileView(row, cited.get(row.id), uses.get(row.id))),
    limits: { maxBytes: limits.maxBytes, maxFiles: limits.maxFiles, kinds: [...limits.kinds] },
  };
}

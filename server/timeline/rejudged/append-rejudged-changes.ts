import type { TChangeDecisions, TChangeDelta, TChangeMateriality } from "@/contracts/timeline";
import type { TDb, TTx } from "../../db";

export type TRejudgedInput = {
  runId: string;
  entityId: string;
  capturedAt: Date;
  materiality: TChangeMateriality;
  delta: TChangeDelta;
  decisions: TChangeDecisions;
};

/**
 * Records what a locked version would have recorded for runs already judged (docs/replay.md, "Lock with history"). Never
 * touches EntityChange, and writes no notification: the person asked for a second reading of old pages, not news.
 * Idempotent per (run, entity, version): re-judging under the same version again adds nothing. Returns the count
 * inserted.
 */
export async function appendRejudgedChanges(
  db: TDb | TTx,
  input: { trackerId: string; version: number; entries: TRejudgedInput[] },
): Promise<number> {
  if (input.entries.length === 0) return 0;
  const { count } = await db.rejudgedChange.createMany({
    data: input.entries.map((e) => ({
      trackerId: input.trackerId,
      version: input.version,
      runId: e.runId,
      entityId: e.entityId,
      capturedAt: e.capturedAt,
      materiality: e.materiality,
      // Plain JSON (no undefined, no prototypes), as Prisma's Json input wants it.
      delta: JSON.parse(JSON.stringify(e.delta)),
      decisions: JSON.parse(JSON.stringify(e.decisions)),
    })),
    skipDuplicates: true,
  });
  return count;
}

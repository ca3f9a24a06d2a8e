import type { TDb, TTx } from "../../db";
import { decodeCapture } from "./encode-capture";

/** A run that judged new content, in the order the runs happened (issue 18: replay's input). */
export type TRunCapture = {
  runId: string;
  captureId: string;
  entityId: string;
  entityKey: string;
  /** When the run ended (its change, if any, carries the same instant or one a moment earlier). */
  at: Date;
  definitionVersion: number | null;
  /** What the run decided, as stored (JSON; the replay parses it). */
  basis: unknown;
};

/**
 * The runs of a tracker that stored a capture, oldest first, in [from, to]; plus the last one before `from` (the
 * replay's starting point, not reported). Ownership is the caller's job (getTracker first). Payloads are not
 * loaded here: `loadCapturePayloads` reads them in batches, so a long history never sits in memory at once.
 */
export async function listRunCaptures(
  db: TDb,
  input: { trackerId: string; from?: Date; to?: Date },
): Promise<{ before: TRunCapture | null; inPeriod: TRunCapture[] }> {
  const select = {
    id: true,
    captureId: true,
    finishedAt: true,
    definitionVersion: true,
    replayBasis: true,
    capture: { select: { entityId: true, entity: { select: { entityKey: true } } } },
  } as const;
  const toRow = (r: {
    id: string;
    captureId: string | null;
    finishedAt: Date | null;
    definitionVersion: number | null;
    replayBasis: unknown;
    capture: { entityId: string; entity: { entityKey: string } } | null;
  }): TRunCapture | null =>
    r.captureId && r.capture && r.finishedAt
      ? {
          runId: r.id,
          captureId: r.captureId,
          entityId: r.capture.entityId,
          entityKey: r.capture.entity.entityKey,
          at: r.finishedAt,
          definitionVersion: r.definitionVersion,
          basis: r.replayBasis,
        }
      : null;
  const period = {
    ...(input.from ? { gte: input.from } : {}),
    ...(input.to ? { lte: input.to } : {}),
  };
  const [rows, earlier] = await Promise.all([
    db.refreshRun.findMany({
      where: { trackerId: input.trackerId, captureId: { not: null }, finishedAt: period },
      orderBy: [{ finishedAt: "asc" }, { id: "asc" }],
      select,
    }),
    input.from
      ? db.refreshRun.findFirst({
          where: { trackerId: input.trackerId, captureId: { not: null }, finishedAt: { lt: input.from } },
          orderBy: [{ finishedAt: "desc" }, { id: "desc" }],
          select,
        })
      : null,
  ]);
  return {
    before: earlier ? toRow(earlier) : null,
    inPeriod: rows.map(toRow).filter((r): r is TRunCapture => r !== null),
  };
}

/** The decoded payloads of these captures (by id), one query for the batch. */
export async function loadCapturePayloads(
  db: TDb,
  input: { trackerId: string; captureIds: string[] },
): Promise<Map<string, unknown>> {
  const rows = await db.capture.findMany({
    where: { trackerId: input.trackerId, id: { in: [...new Set(input.captureIds)] } },
    select: { id: true, data: true },
  });
  const out = new Map<string, unknown>();
  for (const row of rows) out.set(row.id, await decodeCapture(row.data));
  return out;
}

/** How much history a tracker stores (shown on its page). */
export async function getCaptureStats(db: TDb | TTx, trackerId: string): Promise<{ captures: number; bytes: number }> {
  const agg = await db.capture.aggregate({ where: { trackerId }, _count: { _all: true }, _sum: { storedBytes: true } });
  return { captures: agg._count._all, bytes: agg._sum.storedBytes ?? 0 };
}

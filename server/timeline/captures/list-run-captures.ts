import type { TDb, TTx } from "../../db";
import { Prisma } from "../../generated/prisma/client";
import { decodeCapture } from "./encode-capture";

/** A run that judged new content, in the order the runs happened (replay's input, docs/replay.md). */
export type TRunCapture = {
  runId: string;
  captureId: string;
  entityId: string;
  entityKey: string;
  /** When the run ended (its change, if any, carries the same instant or one a moment earlier). */
  at: Date;
  definitionVersion: number | null;
  /** The run's outcome: "unchanged" marks a one-time re-hash under a new page format (no tracked field moved). */
  outcome: string | null;
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
    outcome: true,
    replayBasis: true,
    capture: { select: { entityId: true, entity: { select: { entityKey: true } } } },
  } as const;
  const toRow = (r: {
    id: string;
    captureId: string | null;
    finishedAt: Date | null;
    definitionVersion: number | null;
    outcome: string | null;
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
          outcome: r.outcome,
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

/**
 * The decoded payloads of these captures (by id), one query for the batch. The bytes travel as base64 text: the
 * embedded database's Prisma adapter parses `bytea` hex one character pair at a time, which cost replay ~5 ms per
 * 12 KB capture (measured with `npm run bench -- replay`); base64 is decoded natively.
 */
export async function loadCapturePayloads(
  db: TDb,
  input: { trackerId: string; captureIds: string[] },
): Promise<Map<string, unknown>> {
  const ids = [...new Set(input.captureIds)];
  const out = new Map<string, unknown>();
  if (ids.length === 0) return out;
  const rows = await db.$queryRaw<{ id: string; data: string }[]>`
    SELECT "id", encode("data", 'base64') AS "data" FROM "Capture"
    WHERE "trackerId" = ${input.trackerId} AND "id" IN (${Prisma.join(ids)})`;
  for (const row of rows) out.set(row.id, await decodeCapture(Buffer.from(row.data, "base64")));
  return out;
}

/** How much history a tracker stores (shown on its page). */
export async function getCaptureStats(db: TDb | TTx, trackerId: string): Promise<{ captures: number; bytes: number }> {
  const agg = await db.capture.aggregate({ where: { trackerId }, _count: { _all: true }, _sum: { storedBytes: true } });
  return { captures: agg._count._all, bytes: agg._sum.storedBytes ?? 0 };
}

/**
 * The capture of the tracker's last recorded change (its baseline at least): the page as it was when its fields
 * last read (docs/page-view.md, "Before"). Null when nothing was recorded with a capture. Ownership is the caller's.
 */
export async function lastRecordedCapture(
  db: TDb,
  input: { trackerId: string },
): Promise<{ payload: unknown; at: Date } | null> {
  const change = await db.entityChange.findFirst({
    where: { trackerId: input.trackerId, run: { captureId: { not: null } } },
    orderBy: [{ capturedAt: "desc" }, { id: "desc" }],
    select: { capturedAt: true, run: { select: { captureId: true } } },
  });
  const captureId = change?.run.captureId;
  if (!change || !captureId) return null;
  const payloads = await loadCapturePayloads(db, { trackerId: input.trackerId, captureIds: [captureId] });
  return payloads.has(captureId) ? { payload: payloads.get(captureId), at: change.capturedAt } : null;
}

import type { TDb } from "@/server/db";

/** One RunDailyStat row in a comparable shape (day as YYYY-MM-DD, bytes as a number). */
export type TDayStat = {
  trackerId: string;
  day: string;
  unchanged: number;
  skipped: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  capabilityCalls: number;
  requests: number;
  bytes: number;
};

const byKey = (a: TDayStat, b: TDayStat) => `${a.trackerId} ${a.day}`.localeCompare(`${b.trackerId} ${b.day}`);

/**
 * What retention should add to RunDailyStat, computed independently in JS from the rows as they are now: the runs
 * created before `cutoff` that are unchanged checks or skipped and have no timeline entry nor capture, with their ledger rows,
 * summed per tracker per UTC day. Also returns the ids of those runs.
 */
export async function expectedDayStats(db: TDb, cutoff: Date): Promise<{ stats: TDayStat[]; runIds: Set<string> }> {
  const runs = await db.refreshRun.findMany({
    where: { createdAt: { lt: cutoff } },
    include: { capabilityCalls: true, _count: { select: { changes: true, rejudged: true } } },
  });
  const prunable = runs.filter(
    (r) =>
      r._count.changes === 0 &&
      r._count.rejudged === 0 &&
      r.captureId === null &&
      ((r.status === "completed" && r.outcome === "unchanged") || r.status === "skipped"),
  );
  const days = new Map<string, TDayStat>();
  for (const r of prunable) {
    const day = r.createdAt.toISOString().slice(0, 10);
    const key = `${r.trackerId} ${day}`;
    const s = days.get(key) ?? {
      trackerId: r.trackerId,
      day,
      unchanged: 0,
      skipped: 0,
      modelCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      capabilityCalls: 0,
      requests: 0,
      bytes: 0,
    };
    if (r.status === "skipped") s.skipped++;
    else s.unchanged++;
    s.modelCalls += r.modelCalls;
    s.inputTokens += r.inputTokens;
    s.outputTokens += r.outputTokens;
    s.capabilityCalls += r.capabilityCalls.length;
    for (const c of r.capabilityCalls) {
      s.requests += c.requests;
      s.bytes += c.bytes;
    }
    days.set(key, s);
  }
  return { stats: [...days.values()].sort(byKey), runIds: new Set(prunable.map((r) => r.id)) };
}

/** RunDailyStat as stored, in the same shape and order. */
export async function storedDayStats(db: TDb): Promise<TDayStat[]> {
  const rows = await db.runDailyStat.findMany();
  return rows
    .map((r) => ({
      trackerId: r.trackerId,
      day: r.day.toISOString().slice(0, 10),
      unchanged: r.unchanged,
      skipped: r.skipped,
      modelCalls: r.modelCalls,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      capabilityCalls: r.capabilityCalls,
      requests: r.requests,
      bytes: Number(r.bytes),
    }))
    .sort(byKey);
}

/** Adds day stats together per (tracker, day): what the table holds after several prunes. */
export function addDayStats(...lists: TDayStat[][]): TDayStat[] {
  const days = new Map<string, TDayStat>();
  for (const s of lists.flat()) {
    const key = `${s.trackerId} ${s.day}`;
    const found = days.get(key);
    if (!found) {
      days.set(key, { ...s });
      continue;
    }
    for (const k of [
      "unchanged",
      "skipped",
      "modelCalls",
      "inputTokens",
      "outputTokens",
      "capabilityCalls",
      "requests",
      "bytes",
    ] as const) {
      found[k] += s[k];
    }
  }
  return [...days.values()].sort(byKey);
}

import type { TDb, TTx } from "../../db";
import { getTracker } from "../../intelligence/tracker-store";
import { queryTimeline, type TTimelineEntry } from "../../timeline";

export type TSeriesPoint = { at: Date; value: number; materiality: TTimelineEntry["materiality"]; changeId: string };
export type TNumericSeries = { field: string; points: TSeriesPoint[] };

const MAX_POINTS = 200;

function toNumber(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (value && typeof value === "object" && "amount" in value) {
    const amount = (value as { amount: unknown }).amount;
    return typeof amount === "number" && Number.isFinite(amount) ? amount : null;
  }
  return null;
}

/**
 * One series per numeric field, from the timeline (the baseline and every recorded change), oldest
 * first, at most the last 200 points. Noise is not in the timeline, so the chart shows what mattered.
 */
export async function getNumericSeries(
  db: TDb | TTx,
  input: { userId: string; trackerId: string },
): Promise<TNumericSeries[]> {
  const tracker = await getTracker(db, input);
  const page = await queryTimeline(db, { trackerId: tracker.id, limit: MAX_POINTS, order: "desc" });
  const byField = new Map<string, TSeriesPoint[]>();
  for (const entry of [...page.items].reverse()) {
    for (const [field, delta] of Object.entries(entry.delta)) {
      const value = toNumber(delta.to);
      if (value === null) continue;
      const points = byField.get(field) ?? [];
      points.push({ at: entry.capturedAt, value, materiality: entry.materiality, changeId: entry.id });
      byField.set(field, points);
    }
  }
  return [...byField.entries()].map(([field, points]) => ({ field, points }));
}

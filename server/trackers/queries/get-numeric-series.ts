import { fieldLabel, numericValue, type TValueFormat } from "@/contracts/definition/format-value";
import type { TNumericSeries } from "@/contracts/trackers";
import type { TDb, TTx } from "../../db";
import { isNumericFieldType, parseDefinition } from "../../intelligence/definition";
import { getTracker } from "../../intelligence/tracker-store";
import { getCurrentState, queryTimeline, type TTimelineEntry } from "../../timeline";

export type { TNumericSeries } from "@/contracts/trackers";
export type TSeriesPoint = { at: Date; value: number; materiality: TTimelineEntry["materiality"]; changeId: string };

const MAX_POINTS = 200;

/**
 * One series per numeric field, from the timeline (the baseline and every recorded change), oldest first, at most
 * the last 200 points — noise is not in the timeline, so the points are what mattered — plus `now`: what the
 * source said at the last check (the observed value, which a noise verdict does not make a point; docs/design.md §4).
 * Fields in definition order (numeric fields the definition declares get a series once they have a value), then
 * any other field the timeline recorded numbers for; each with its label and format for the chart's axis.
 */
export async function getNumericSeries(
  db: TDb | TTx,
  input: { userId: string; trackerId: string },
): Promise<TNumericSeries[]> {
  const tracker = await getTracker(db, input);
  const page = await queryTimeline(db, { trackerId: tracker.id, limit: MAX_POINTS, order: "desc" });
  const formats = new Map<string, TValueFormat>();
  if (tracker.lockedVersion !== null) {
    const row = await db.trackerDefinition.findUnique({
      where: { trackerId_version: { trackerId: tracker.id, version: tracker.lockedVersion } },
      select: { definition: true },
    });
    const parsed = row ? parseDefinition(row.definition) : null;
    if (parsed?.ok) {
      for (const f of parsed.definition.fields) {
        if (isNumericFieldType(f.type)) formats.set(f.name, f);
      }
    }
  }
  const byField = new Map<string, TSeriesPoint[]>([...formats.keys()].map((name) => [name, []]));
  for (const entry of [...page.items].reverse()) {
    for (const [field, delta] of Object.entries(entry.delta)) {
      const value = numericValue(delta.to);
      if (value === null) continue;
      const points = byField.get(field) ?? [];
      points.push({ at: entry.capturedAt, value, materiality: entry.materiality, changeId: entry.id });
      byField.set(field, points);
    }
  }
  const entity = await db.trackedEntity.findFirst({
    where: { trackerId: tracker.id },
    orderBy: { firstSeenAt: "asc" },
    select: { id: true },
  });
  const state = entity ? await getCurrentState(db, entity.id) : null;
  const series: TNumericSeries[] = [];
  for (const [field, points] of byField) {
    const observed = state ? numericValue(state.observed[field] ?? state.fields[field]) : null;
    if (points.length === 0 && observed === null) continue;
    const format = formats.get(field);
    series.push({
      field,
      label: fieldLabel(field),
      format: format
        ? {
            type: format.type,
            ...(format.unit ? { unit: format.unit } : {}),
            ...(format.currency ? { currency: format.currency } : {}),
          }
        : null,
      points,
      now: state && observed !== null ? { at: state.lastCheckedAt, value: observed } : null,
    });
  }
  return series;
}

import type { TValueFormat } from "@/contracts/definition/format-value";
import { getCapability } from "../../capabilities/registry";
import type { TDb } from "../../db";
import { parseDefinition } from "../../intelligence/definition";
import { CALENDAR_STALE_LIMIT_MS, type TCalendarCacheView } from "../calendar/calendar-cache";
import { resolveOccurrenceTime } from "../calendar/parse-calendar";
import { rollUpViewOf } from "../sources/set-roll-up-card";
import { describeChange } from "../sources/trackers-source";
import { addDays, dayStart, type TDayKey } from "./briefing-day";
import type { TBriefingChange, TBriefingEvent, TBriefingInput } from "./build-briefing";

/**
 * What the briefing is built from, read in two bounded statements (docs/feed.md, "The briefing card"): the material
 * changes since yesterday began (counted exactly, each tracker described by its newest, the newest trackers first),
 * and the calendar's cached copy (the calendar source's own cache: never a download).
 */

/** Trackers read and described (the card names two, the model's data lists five). */
const TRACKERS_READ = 5;
/** How long a subject may be ("Acme Pro", or a decision shortened). */
const MAX_SUBJECT = 40;
/** The fields people call a thing by (as a set's members are named, server/timeline/set-roll-up-view.ts). */
const NAME_FIELDS = ["name", "title"] as const;

type TChangeRow = {
  id: string;
  trackerId: string;
  capturedAt: Date;
  delta: unknown;
  decisions: unknown;
  decision: string;
  capability: string;
  definition: unknown;
  fields: unknown;
  changes: number;
  total: number;
  trackerCount: number;
};

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** The thing's name from its current record, else its decision in quotes (shortened). */
function subjectOf(row: Pick<TChangeRow, "fields" | "decision">): string {
  const fields = row.fields && typeof row.fields === "object" ? (row.fields as Record<string, unknown>) : {};
  for (const name of NAME_FIELDS) {
    const value = fields[name];
    if (typeof value === "string" && value.trim()) return cut(value.replace(/\s+/g, " ").trim(), MAX_SUBJECT);
  }
  return `“${cut(row.decision.replace(/\s+/g, " ").trim(), MAX_SUBJECT)}”`;
}

/**
 * One tracker's newest material change in a few words: a set's roll-up by its headline (its counts, "2 new
 * products"), anything else by its first field as the tracker's card shows it ("price −10%", "status open → closed").
 */
export function describeBriefingChange(row: TChangeRow): TBriefingChange {
  const parsed = parseDefinition(row.definition);
  const formats = new Map<string, TValueFormat>(parsed.ok ? parsed.definition.fields.map((f) => [f.name, f]) : []);
  const base = { trackerId: row.trackerId, subject: subjectOf(row), count: row.changes };
  if (parsed.ok && parsed.definition.set !== undefined) {
    const noun = getCapability(row.capability)?.draftSet?.member ?? null;
    const view = rollUpViewOf(row.trackerId, row, { formats, set: { noun, latest: null }, loaded: null });
    // The headline's counts; the members it goes on to name are the card's.
    const headline = view?.headline.split(";")[0]?.trim();
    if (headline) return { ...base, what: cut(headline, 80) };
  }
  const [field] = describeChange({ ...row, materiality: "material" }, formats);
  if (!field) return { ...base, what: "changed" };
  const label = field.label.toLowerCase();
  return { ...base, what: cut(field.change ? `${label} ${field.change}` : `${label} ${field.from} → ${field.to}`, 80) };
}

/** Material changes captured from `since` on, of the person's trackers that are not archived. */
export async function readChangesSince(db: TDb, userId: string, since: Date): Promise<TBriefingInput["changes"]> {
  const rows = await db.$queryRaw<TChangeRow[]>`
    SELECT r.id, r."trackerId", r."capturedAt", r.delta, r.decisions, r.changes, r.total,
           t.decision, t.capability, d.definition, s.fields, count(*) OVER ()::int AS "trackerCount"
    FROM (
      SELECT e.id, e."trackerId", e."entityId", e."capturedAt", e.delta, e.decisions,
             row_number() OVER (PARTITION BY e."trackerId" ORDER BY e."capturedAt" DESC, e.id DESC) AS n,
             count(*) OVER (PARTITION BY e."trackerId")::int AS changes,
             count(*) OVER ()::int AS total
      FROM "EntityChange" e
      JOIN "Tracker" tr ON tr.id = e."trackerId"
      WHERE tr."userId" = ${userId} AND tr.status <> 'archived'
        AND e.materiality = 'material' AND e."capturedAt" >= ${since}
    ) r
    JOIN "Tracker" t ON t.id = r."trackerId"
    LEFT JOIN "TrackerDefinition" d ON d."trackerId" = t.id AND d.version = t."lockedVersion"
    LEFT JOIN "EntityCurrentState" s ON s."entityId" = r."entityId"
    WHERE r.n = 1
    ORDER BY r."capturedAt" DESC, r.id DESC
    LIMIT ${TRACKERS_READ}`;
  const first = rows[0];
  return {
    total: first ? Number(first.total) : 0,
    trackerCount: first ? Number(first.trackerCount) : 0,
    trackers: rows.map((row) => describeBriefingChange({ ...row, changes: Number(row.changes) })),
  };
}

/**
 * The cached calendar's events that touch `today` in `zone` (times resolved as the calendar source resolves them);
 * null while there is no readable copy (not downloaded yet, or failing for longer than the calendar shows a stale copy).
 */
export function eventsAround(
  cached: TCalendarCacheView,
  input: { zone: string; today: TDayKey; now: Date },
): TBriefingEvent[] | null {
  if (!cached.occurrences) return null;
  if (cached.error) {
    const fresh = cached.fetchedAt && input.now.getTime() - cached.fetchedAt.getTime() <= CALENDAR_STALE_LIMIT_MS;
    if (!fresh) return null;
  }
  const from = dayStart(addDays(input.today, -1), input.zone).getTime();
  const to = dayStart(addDays(input.today, 1), input.zone).getTime();
  const events: TBriefingEvent[] = [];
  for (const o of cached.occurrences) {
    const start = resolveOccurrenceTime(o.start, input.zone);
    const end = o.end ? resolveOccurrenceTime(o.end, input.zone) : null;
    if (Number.isNaN(start.getTime()) || start.getTime() >= to) continue;
    // All-day events may span days (the end is exclusive); a timed one counts on the day it starts.
    if ((o.allDay ? (end ?? start).getTime() : start.getTime()) < from) continue;
    events.push({ title: o.summary, allDay: o.allDay, start, end });
  }
  return events;
}

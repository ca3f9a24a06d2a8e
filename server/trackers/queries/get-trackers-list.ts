import { fieldLabel, formatChange, formatFieldValue, type TValueFormat } from "@/contracts/definition/format-value";
import { ZChangeDecisionsSchema, ZChangeDeltaSchema } from "@/contracts/timeline";
import {
  type TDraftListItem,
  type TFieldValueView,
  type TLastChangeView,
  TRACKERS_PAGE_MAX,
  TRACKERS_PAGE_SIZE,
  type TTrackerListFilter,
  type TTrackerListItem,
  type TTrackersListView,
} from "@/contracts/trackers";
import type { TDb, TTx } from "../../db";
import type { Prisma } from "../../generated/prisma/client";
import { NOTABLE_SIGNALS, parseDefinition } from "../../intelligence/definition";
import { FAILING_WHERE, NEEDS_ATTENTION_WHERE } from "../../intelligence/tracker-store";
import { STALE_DRAFT_DAYS } from "../commands/discard-stale-drafts";
import { describeTarget, toTrackerSummary } from "../views/tracker-summary-view";
import {
  afterTrackerCursorWhere,
  NOT_PURE_DRAFT_WHERE,
  pageOf,
  TRACKER_LIST_ORDER,
  trackerFilterWhere,
  trackerSearchWhere,
} from "./tracker-list-where";

/** The list shows the first few fields of each tracker (definition order) and of its last change. */
const MAX_VALUES = 4;
const MAX_CHANGED_FIELDS = 3;
const DAY_MS = 24 * 60 * 60_000;

type TLastMaterialRow = { trackerId: string; capturedAt: Date; delta: unknown; decisions: unknown };
type TStateRow = { trackerId: string; fields: unknown; observed: unknown };

/**
 * The trackers list page, a page at a time (docs/trackers.md, "Paging, search and filters"): the trackers matching
 * the "Show" choice and the search, newest first, each with what its source says now and its last material change,
 * formatted for people; how many match each choice; and on the first page the drafts apart (with the conversation
 * Resume opens and when they are discarded unless touched). A fixed number of bounded queries whatever the number of
 * trackers: the page (limit + 1 rows by the keyset cursor), three counts, the page's definitions in force, one
 * lateral read each of the page's first entities' states and newest material changes (index trackerId, capturedAt,
 * id), and the drafts.
 */
export async function getTrackersList(
  db: TDb | TTx,
  input: { userId: string; show?: TTrackerListFilter; q?: string; cursor?: string | null; limit?: number; now?: Date },
): Promise<TTrackersListView> {
  const asOf = input.now ?? new Date();
  const show = input.show ?? "current";
  const limit = input.limit ?? TRACKERS_PAGE_SIZE;
  const scope: Prisma.TrackerWhereInput = { userId: input.userId, ...NOT_PURE_DRAFT_WHERE };
  const search = trackerSearchWhere(input.q);
  // Prisma's ANDed objects, so the search's OR and the cursor's OR do not overwrite each other.
  const rows = await db.tracker.findMany({
    where: { AND: [scope, search, trackerFilterWhere(show), afterTrackerCursorWhere(input.cursor)] },
    orderBy: TRACKER_LIST_ORDER,
    take: limit + 1,
  });
  const { page: trackers, nextCursor } = pageOf(rows, limit);
  const counts = await countByFilter(db, { AND: [scope, search] });
  const drafts = input.cursor ? [] : await listDrafts(db, input.userId);
  const ids = trackers.map((t) => t.id);

  const locked = trackers.flatMap((t) => (t.lockedVersion ? [{ trackerId: t.id, version: t.lockedVersion }] : []));
  const definitions = locked.length
    ? await db.trackerDefinition.findMany({ where: { OR: locked }, select: { trackerId: true, definition: true } })
    : [];
  const formats = new Map<string, Map<string, TValueFormat>>();
  for (const row of definitions) {
    const parsed = parseDefinition(row.definition);
    if (!parsed.ok) continue;
    formats.set(row.trackerId, new Map(parsed.definition.fields.map((f) => [f.name, f])));
  }

  // Each tracker's first entity with a state (a set's first member): one row per tracker, however many members.
  const stateRows = ids.length
    ? await db.$queryRaw<TStateRow[]>`
        SELECT x.id AS "trackerId", s."fields", s."observed"
        FROM unnest(${ids}::text[]) AS x(id)
        CROSS JOIN LATERAL (
          SELECT st."fields", st."observed" FROM "TrackedEntity" te
          JOIN "EntityCurrentState" st ON st."entityId" = te."id"
          WHERE te."trackerId" = x.id
          ORDER BY te."firstSeenAt" ASC, te."id" ASC
          LIMIT 1
        ) s`
    : [];
  const states = new Map<string, Record<string, unknown>>();
  for (const row of stateRows) {
    // What the source says now (a noise verdict keeps the baseline in `fields`, not here); rows from before
    // observed values were kept have an empty object there.
    const observed = row.observed;
    const hasObserved = !!observed && typeof observed === "object" && Object.keys(observed).length > 0;
    const fields = hasObserved ? observed : row.fields;
    if (fields && typeof fields === "object" && !Array.isArray(fields)) {
      states.set(row.trackerId, fields as Record<string, unknown>);
    }
  }

  const lastRows = ids.length
    ? await db.$queryRaw<TLastMaterialRow[]>`
        SELECT x.id AS "trackerId", c."capturedAt", c."delta", c."decisions"
        FROM unnest(${ids}::text[]) AS x(id)
        CROSS JOIN LATERAL (
          SELECT e."capturedAt", e."delta", e."decisions" FROM "EntityChange" e
          WHERE e."trackerId" = x.id AND e."materiality" = 'material'
          ORDER BY e."capturedAt" DESC, e."id" DESC
          LIMIT 1
        ) c`
    : [];
  const lastByTracker = new Map(lastRows.map((row) => [row.trackerId, row]));

  return {
    asOf,
    drafts,
    total: counts[show],
    counts,
    nextCursor,
    trackers: trackers.map((t): TTrackerListItem => {
      const last = lastByTracker.get(t.id);
      const fieldFormats = formats.get(t.id) ?? new Map<string, TValueFormat>();
      return {
        ...toTrackerSummary(t, last ? new Date(last.capturedAt) : null, asOf),
        values: currentValues(states.get(t.id), fieldFormats),
        lastChange: last ? lastChange(last, fieldFormats) : null,
      };
    }),
  };
}

/**
 * How many trackers each "Show" choice lists, within the search: three counts over the person's rows (by status,
 * failing, needs attention), the rest summed from them.
 */
async function countByFilter(
  db: TDb | TTx,
  where: Prisma.TrackerWhereInput,
): Promise<Record<TTrackerListFilter, number>> {
  const byStatus = await db.tracker.groupBy({ by: ["status"], where, _count: { _all: true } });
  const failing = await db.tracker.count({ where: { AND: [where, FAILING_WHERE] } });
  const needsAttention = await db.tracker.count({ where: { AND: [where, NEEDS_ATTENTION_WHERE] } });
  const of = (status: string) => byStatus.find((row) => row.status === status)?._count._all ?? 0;
  const all = byStatus.reduce((sum, row) => sum + row._count._all, 0);
  return {
    current: all - of("archived"),
    active: of("active"),
    failing,
    needs_attention: needsAttention,
    paused: of("paused"),
    archived: of("archived"),
    all,
  };
}

/** Draft trackers never locked, newest work first; bounded (a person keeps at most 20 unfinished setups). */
async function listDrafts(db: TDb | TTx, userId: string): Promise<TDraftListItem[]> {
  const rows = await db.tracker.findMany({
    where: { userId, status: "draft", lockedVersion: null },
    orderBy: TRACKER_LIST_ORDER,
    take: TRACKERS_PAGE_MAX,
    include: { setup: { select: { id: true, updatedAt: true } } },
  });
  return rows.map((t) => toDraftItem(t)).sort((a, b) => b.touchedAt.getTime() - a.touchedAt.getTime());
}

function toDraftItem(t: {
  id: string;
  decision: string;
  capability: string;
  capabilityInput: unknown;
  createdAt: Date;
  updatedAt: Date;
  setup: { id: string; updatedAt: Date } | null;
}): TDraftListItem {
  const touchedAt = new Date(Math.max(t.updatedAt.getTime(), t.setup?.updatedAt.getTime() ?? 0));
  return {
    id: t.id,
    decision: t.decision,
    capability: t.capability,
    target: describeTarget(t.capability, t.capabilityInput),
    createdAt: t.createdAt,
    touchedAt,
    discardAfter: new Date(touchedAt.getTime() + STALE_DRAFT_DAYS * DAY_MS),
    setupSessionId: t.setup?.id ?? null,
  };
}

/** The state's fields in definition order (fields the definition no longer has last), at most MAX_VALUES. */
function currentValues(
  fields: Record<string, unknown> | undefined,
  formats: Map<string, TValueFormat>,
): TFieldValueView[] {
  if (!fields) return [];
  const names = [...formats.keys(), ...Object.keys(fields).filter((n) => !formats.has(n))].filter(
    (n) => n !== NOTABLE_SIGNALS && n in fields,
  );
  return names.slice(0, MAX_VALUES).map((name) => ({
    name,
    label: fieldLabel(name),
    text: formatFieldValue(fields[name], formats.get(name)),
  }));
}

/**
 * The fields of the change that were judged material (a noise move recorded beside them is not what made it
 * material); every field when none says so, notable signals only when nothing else moved.
 */
function lastChange(row: TLastMaterialRow, formats: Map<string, TValueFormat>): TLastChangeView {
  const delta = ZChangeDeltaSchema.safeParse(row.delta);
  const decisions = ZChangeDecisionsSchema.safeParse(row.decisions);
  const entries = delta.success ? Object.entries(delta.data) : [];
  const verdict = (name: string) => (decisions.success ? decisions.data[name]?.verdict : undefined);
  const fields = entries.filter(([name]) => name !== NOTABLE_SIGNALS);
  const material = fields.filter(([name]) => verdict(name) === "material");
  const shown = material.length ? material : fields.length ? fields : entries;
  return {
    capturedAt: new Date(row.capturedAt),
    fields: shown.slice(0, MAX_CHANGED_FIELDS).map(([name, d]) => ({
      name,
      label: fieldLabel(name),
      text: formatChange(d.from, d.to, formats.get(name)),
    })),
  };
}

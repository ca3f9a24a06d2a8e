import { fieldLabel, formatChange, formatFieldValue, type TValueFormat } from "@/contracts/definition/format-value";
import { ZChangeDecisionsSchema, ZChangeDeltaSchema } from "@/contracts/timeline";
import type {
  TDraftListItem,
  TFieldValueView,
  TLastChangeView,
  TTrackerListItem,
  TTrackersListView,
} from "@/contracts/trackers";
import type { TDb, TTx } from "../../db";
import { NOTABLE_SIGNALS, parseDefinition } from "../../intelligence/definition";
import { STALE_DRAFT_DAYS } from "../commands/discard-stale-drafts";
import { describeTarget, toTrackerSummary } from "../views/tracker-summary-view";

/** The list shows the first few fields of each tracker (definition order) and of its last change. */
const MAX_VALUES = 4;
const MAX_CHANGED_FIELDS = 3;
const DAY_MS = 24 * 60 * 60_000;

type TLastMaterialRow = { trackerId: string; capturedAt: Date; delta: unknown; decisions: unknown };

/**
 * The trackers list page: drafts apart (with the conversation Resume opens and when they are discarded unless
 * touched), every other tracker with what its source says now and its last material change, formatted for people.
 * A fixed number of queries whatever the number of trackers: trackers, definitions in force, first entities'
 * states, and one lateral read of each tracker's newest material change (index trackerId, capturedAt, id).
 */
export async function getTrackersList(
  db: TDb | TTx,
  input: { userId: string; now?: Date },
): Promise<TTrackersListView> {
  const asOf = input.now ?? new Date();
  const rows = await db.tracker.findMany({
    where: { userId: input.userId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    include: { setup: { select: { id: true, updatedAt: true } } },
  });
  const drafts = rows.filter((t) => t.status === "draft" && t.lockedVersion === null);
  const trackers = rows.filter((t) => !(t.status === "draft" && t.lockedVersion === null));
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

  const entities = ids.length
    ? await db.trackedEntity.findMany({
        where: { trackerId: { in: ids } },
        orderBy: [{ firstSeenAt: "asc" }, { id: "asc" }],
        select: { trackerId: true, state: { select: { fields: true, observed: true } } },
      })
    : [];
  const states = new Map<string, Record<string, unknown>>();
  for (const entity of entities) {
    // What the source says now (a noise verdict keeps the baseline in `fields`, not here); rows from before
    // observed values were kept have an empty object there.
    const observed = entity.state?.observed;
    const hasObserved = !!observed && typeof observed === "object" && Object.keys(observed).length > 0;
    const fields = hasObserved ? observed : entity.state?.fields;
    if (!states.has(entity.trackerId) && fields && typeof fields === "object" && !Array.isArray(fields)) {
      states.set(entity.trackerId, fields as Record<string, unknown>);
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
    drafts: drafts.map((t) => toDraftItem(t)).sort((a, b) => b.touchedAt.getTime() - a.touchedAt.getTime()),
    trackers: trackers.map((t): TTrackerListItem => {
      const last = lastByTracker.get(t.id);
      const fieldFormats = formats.get(t.id) ?? new Map<string, TValueFormat>();
      return {
        ...toTrackerSummary(t, last ? new Date(last.capturedAt) : null),
        values: currentValues(states.get(t.id), fieldFormats),
        lastChange: last ? lastChange(last, fieldFormats) : null,
      };
    }),
  };
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

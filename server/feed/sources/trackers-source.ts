import {
  fieldLabel,
  formatFieldValue,
  formatRelativeChange,
  numericValue,
  type TValueFormat,
} from "@/contracts/definition/format-value";
import { buildSpec, type TSpecNode } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import { ZChangeDecisionsSchema, ZChangeDeltaSchema } from "@/contracts/timeline";
import { getCapability } from "../../capabilities/registry";
import type { TDb } from "../../db";
import { isNumericFieldType, NOTABLE_SIGNALS, parseDefinition } from "../../intelligence/definition";
import { loadRollUpMembers } from "../../timeline/set-roll-up-view";
import { FAILING_WHERE, isFailing, NEEDS_ATTENTION_WHERE } from "../../trackers";
import { cardKey, keyCard } from "../card-memo";
import type { TFeedSource } from "../feed-engine";
import { rollUpViewOf, setCardData, setCardRows, type TSetCardInput } from "./set-roll-up-card";
import { noticeItem } from "./setup-items";

/**
 * The bounds that keep the feed the same size however long the app runs (without them: 43 cards on a 6,945 px
 * page after eight minutes): changes older than this are the timeline's, not the briefing's…
 */
const LOOKBACK_DAYS = 30;
/** …at most this many decisions get a card (those whose latest change is newest)… */
export const MAX_TRACKER_CARDS = 30;
/** …each read with at most this many recent changes (the sparkline's points and the folded list)… */
export const RECENT_CHANGES_PER_TRACKER = 20;
/** …of which the card unfolds this many behind "n earlier" (the rest is one link away, on the timeline)… */
export const EARLIER_SHOWN = 5;
/** …and "n earlier" is counted up to this (shown as "999+ earlier" beyond). */
const COUNT_CAP = 1000;
const MAX_FIELDS = 4;

export type TChangeRow = {
  id: string;
  capturedAt: Date;
  delta: unknown;
  decisions: unknown;
  materiality: "material" | "notable";
  /** The run that wrote it: a set's roll-up sums up that run's member entries. */
  runId?: string;
};

/** One decision's card input: its tracker, the fields' formats (definition order), its newest changes first. */
export type TTrackerCardInput = {
  tracker: { id: string; decision: string };
  formats: ReadonlyMap<string, TValueFormat>;
  changes: TChangeRow[];
  /** Material and notable changes in the lookback window, the newest included (capped at COUNT_CAP). */
  total: number;
  /**
   * The definition version `formats` come from (the tracker's locked one; null: none, so no formats). It names
   * the formats in the card's memo key; without it only a card with no formats gets a key.
   */
  definitionVersion?: number | null;
  /** Present when the tracker watches a set (docs/sets.md): its changes are roll-ups, read as one (set-roll-up-card.ts). */
  set?: TSetCardInput | null;
};

/** A tracker the feed shows as failing. */
export type TFailingCardRow = {
  id: string;
  decision: string;
  lastError: string | null;
  consecutiveFailures: number;
  updatedAt: Date;
  /** Set while a field reads nothing (docs/field-health.md): the card says why instead. */
  attentionReason?: string | null;
};

type TFieldChange = { name: string; label: string; from: string; to: string; change: string | null };

/** A change's fields as people read them: material ones first, notable signals last, at most MAX_FIELDS. */
export function describeChange(row: TChangeRow, formats: ReadonlyMap<string, TValueFormat>): TFieldChange[] {
  const delta = ZChangeDeltaSchema.safeParse(row.delta);
  if (!delta.success) return [];
  const decisions = ZChangeDecisionsSchema.safeParse(row.decisions);
  const rank = (name: string) =>
    name === NOTABLE_SIGNALS ? 2 : decisions.success && decisions.data[name]?.verdict === "material" ? 0 : 1;
  return Object.entries(delta.data)
    .map(([name, d], i) => ({ name, d, i }))
    .sort((a, b) => rank(a.name) - rank(b.name) || a.i - b.i)
    .slice(0, MAX_FIELDS)
    .map(({ name, d }) => {
      const format = formats.get(name);
      const a = numericValue(d.from);
      const b = numericValue(d.to);
      return {
        name,
        label: fieldLabel(name),
        from: formatFieldValue(d.from, format),
        to: formatFieldValue(d.to, format),
        change: a !== null && b !== null ? formatRelativeChange(a, b) : null,
      };
    });
}

function summarise(fields: TFieldChange[]): string {
  const text = fields
    .slice(0, 2)
    .map((f) => `${f.label}: ${f.from} → ${f.to}${f.change ? ` (${f.change})` : ""}`)
    .join("; ");
  return fields.length > 2 ? `${text}; …` : text || "Changed";
}

/**
 * The main numeric field's values, oldest first: the first numeric field of the definition that the changes
 * moved (else the first numeric one they carry), from the oldest change's "from" to the newest "to".
 */
export function sparklineOf(
  changes: readonly TChangeRow[],
  formats: ReadonlyMap<string, TValueFormat>,
): { field: string; values: number[] } | null {
  const deltas = changes.map((c) => {
    const parsed = ZChangeDeltaSchema.safeParse(c.delta);
    return parsed.success ? parsed.data : {};
  });
  const moved = (name: string) => deltas.some((d) => d[name] && numericValue(d[name].to) !== null);
  const declared = [...formats].find(([name, f]) => isNumericFieldType(f.type) && moved(name))?.[0];
  const field = declared ?? deltas.flatMap((d) => Object.keys(d)).find(moved);
  if (!field) return null;
  const values: number[] = [];
  const chronological = [...deltas].reverse();
  const first = chronological.find((d) => d[field]);
  const start = first ? numericValue(first[field]?.from) : null;
  if (start !== null) values.push(start);
  for (const d of chronological) {
    const value = d[field] ? numericValue(d[field].to) : null;
    if (value !== null) values.push(value);
  }
  return values.length >= 2 ? { field, values } : null;
}

/**
 * The card's content key (card-memo.ts): everything `trackerCardItem` reads — the tracker and its decision, the
 * definition version its formats come from, the count, and each change by id with whether it is new (change rows
 * and definition versions are written once, never updated, so an id or a version stands for its content).
 * Undefined when the formats cannot be named (formats without a version): that card is not memoised.
 */
function trackerCardKey(
  input: TTrackerCardInput,
  isNew: (c: TChangeRow) => boolean,
  setParts: readonly string[] = [],
): string | undefined {
  const version = input.definitionVersion ?? (input.formats.size === 0 ? null : undefined);
  if (version === undefined) return undefined;
  const parts: (string | number | boolean | null)[] = [input.tracker.id, input.tracker.decision, version, input.total];
  for (const c of input.changes) parts.push(c.id, isNew(c));
  // A set's card also names its members by their current records (a rename the rules called noise writes no entry).
  parts.push(setParts.length, ...setParts);
  return cardKey(input.set ? "tracker-set-change" : "tracker-change", parts);
}

/**
 * One card per decision (docs/design.md §6, the feed as a briefing): its situation now — the latest change with its
 * time, from → to in people's units, a sparkline of the main number, what is new since the reader last looked,
 * the model's "what this means for your decision" slot, and the earlier changes folded behind "n earlier".
 * The card's id is its latest change's, so a new change is a new card to enhance. `data` (what the model reads
 * and the enhancement cache hashes) holds no relative time and no "new" flag: both are per view, in the UI only.
 */
export function trackerCardItem(input: TTrackerCardInput, seenSince: Date | null): TFeedItem | null {
  const [latest, ...earlier] = input.changes;
  if (!latest) return null;
  const { tracker, formats } = input;
  const setView = input.set
    ? rollUpViewOf(tracker.id, latest, { formats, set: input.set, loaded: input.set.latest })
    : null;
  const fields = setView ? [] : describeChange(latest, formats);
  const earlierText = (c: TChangeRow) =>
    (input.set && rollUpViewOf(tracker.id, c, { formats, set: input.set, loaded: null })?.headline) ||
    summarise(describeChange(c, formats));
  const isNew = (c: TChangeRow) => seenSince !== null && c.capturedAt.getTime() > seenSince.getTime();
  const newCount = input.changes.filter(isNew).length;
  const spark = sparklineOf(input.changes, formats);
  const earlierCount = Math.max(0, input.total - 1);
  const shown = earlier.slice(0, EARLIER_SHOWN);
  const href = `/trackers/${tracker.id}`;
  const meta: TSpecNode[] = [
    { key: "badge", type: "DeltaBadge", props: { label: latest.materiality, tone: latest.materiality } },
    { key: "when", type: "When", props: { at: latest.capturedAt.toISOString() } },
  ];
  if (newCount > 0) {
    const more = newCount === input.changes.length && input.total > newCount ? "+" : "";
    const label = newCount > 1 ? `${newCount}${more} new since you last looked` : "New since you last looked";
    meta.push({ key: "new", type: "NewMarker", props: { label } });
  }
  const children: TSpecNode[] = [
    { key: "title", type: "Heading", props: { text: tracker.decision } },
    { key: "meta", type: "Stack", props: { direction: "horizontal", gap: "sm" }, children: meta },
    ...(setView ? setCardRows(setView, tracker.decision) : []),
    ...fields.map((f, i) => ({
      key: `row${i}`,
      type: "ChangeRow",
      props: { field: f.label, from: f.from, to: f.to, change: f.change },
    })),
  ];
  if (spark) {
    // A set's only number on its roll-up is how many members it lists: named by what they are.
    const name = setView && spark.field === "members" ? fieldLabel(setView.noun.many) : fieldLabel(spark.field);
    children.push({
      key: "spark",
      type: "Sparkline",
      props: { values: spark.values, label: `${name}, last ${spark.values.length} values` },
    });
  }
  children.push(
    { key: "why", type: "Slot", props: { name: "why" } },
    { key: "next", type: "Slot", props: { name: "next" } },
  );
  if (earlierCount > 0) {
    children.push({
      key: "earlier",
      type: "Earlier",
      props: {
        total: input.total >= COUNT_CAP ? COUNT_CAP - 1 : earlierCount,
        href,
        decision: input.tracker.decision,
        entries: shown.map((c) => ({
          at: c.capturedAt.toISOString(),
          text: earlierText(c),
          isNew: isNew(c),
        })),
      },
    });
  }
  children.push({ key: "link", type: "Link", props: { href, label: `Open the timeline of “${tracker.decision}”` } });
  const item: TFeedItem = {
    id: `change:${latest.id}`,
    sourceId: "trackers",
    type: "tracker-change",
    timestamp: latest.capturedAt,
    data: {
      trackerId: tracker.id,
      decision: tracker.decision,
      materiality: latest.materiality,
      capturedAt: latest.capturedAt.toISOString(),
      ...(setView
        ? { set: setCardData(setView) }
        : { changes: fields.map((f) => ({ field: f.label, from: f.from, to: f.to, change: f.change })) }),
      earlierCount,
      earlier: shown.slice(0, 3).map((c) => ({
        capturedAt: c.capturedAt.toISOString(),
        summary: earlierText(c),
      })),
    },
    signals: { urgency: latest.materiality === "material" ? 0.8 : 0.5, timeRelevance: "upcoming" },
    ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, children),
    slots: {
      why: {
        description: `What this change means for the decision "${tracker.decision}" (one sentence)`,
        content: null,
      },
      next: { description: "What the user should check next, concretely (one sentence)", content: null },
    },
  };
  const setParts = setView
    ? [
        setView.headline,
        ...setView.members.flatMap((m) => [m.kind, m.name, m.href, m.detail ?? ""]),
        String(setView.more),
      ]
    : [];
  const key = trackerCardKey(input, isNew, setParts);
  return key === undefined ? item : keyCard(item, key);
}

/** A tracker whose refreshes keep failing: one calm line with the reason and a link (not an alarm). */
export function failingItem(t: TFailingCardRow): TFeedItem {
  const reason = t.lastError?.trim() || "no reason was recorded";
  return trackerLineItem(t, {
    kind: "failing",
    type: "tracker-failing",
    // Its content key (card-memo.ts): every value it is built from (the reason as shown).
    keyParts: [reason, t.consecutiveFailures],
    data: { failures: t.consecutiveFailures },
    text: `“${t.decision}” could not be checked ${t.consecutiveFailures} times in a row: ${reason}`,
  });
}

/**
 * A tracker whose page comes but a field of which reads nothing (docs/field-health.md): one line with the reason and
 * what to do, linking to its page — like a failing tracker's, in its own type.
 */
export function attentionItem(t: TFailingCardRow & { attentionReason: string }): TFeedItem {
  return trackerLineItem(t, {
    kind: "attention",
    type: "tracker-needs-attention",
    keyParts: [t.attentionReason],
    data: { reason: t.attentionReason },
    text: `“${t.decision}” needs attention: ${t.attentionReason}. Edit the tracker to point the field at the right element again.`,
  });
}

/** One muted line about a tracker and a link to its page: the shape of the failing and needs-attention items. */
function trackerLineItem(
  t: TFailingCardRow,
  item: { kind: string; type: string; keyParts: (string | number)[]; data: Record<string, unknown>; text: string },
): TFeedItem {
  const key = cardKey(item.type, [t.id, t.decision, ...item.keyParts, t.updatedAt.getTime()]);
  return keyCard(
    {
      id: `${item.kind}:${t.id}`,
      sourceId: "trackers",
      type: item.type,
      timestamp: t.updatedAt,
      data: { trackerId: t.id, decision: t.decision, ...item.data },
      signals: { urgency: 0.6, timeRelevance: "ambient" },
      ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, [
        { key: "line", type: "Text", props: { text: item.text.slice(0, 2000), tone: "muted" } },
        {
          key: "link",
          type: "Link",
          props: { href: `/trackers/${t.id}`, label: `Open “${t.decision}”`.slice(0, 200) },
        },
      ]),
    },
    key,
  );
}

/** No tracker yet: the feed's first step. */
function startItem(now: Date): TFeedItem {
  return noticeItem({
    id: "trackers:start",
    type: "trackers-start",
    now,
    title: "Start with a decision",
    text: "Tell Bellwether a decision you need to stay on top of and the page that answers it. Changes that matter to it will appear here, one card per decision.",
    link: { href: "/trackers/new", label: "Create your first tracker" },
    urgency: 0.9,
  });
}

/** Trackers, but nothing that mattered lately: say so calmly, so an empty feed does not read as broken. */
function quietItem(now: Date): TFeedItem {
  return noticeItem({
    id: "trackers:quiet",
    type: "trackers-quiet",
    now,
    text: `All quiet: nothing material changed in the last ${LOOKBACK_DAYS} days. Your trackers keep checking.`,
    link: { href: "/trackers", label: "See your trackers" },
    urgency: 0.1,
  });
}

type TCardRow = TChangeRow & {
  trackerId: string;
  decision: string;
  lockedVersion: number | null;
  total: number;
  capability?: string;
};

/** Rows of the one bounded query (trackers by latest change, newest first; changes newest first) → card inputs. */
export function groupCardRows(rows: readonly TCardRow[]): Map<string, Omit<TTrackerCardInput, "formats">> {
  const cards = new Map<string, Omit<TTrackerCardInput, "formats">>();
  for (const row of rows) {
    let card = cards.get(row.trackerId);
    if (!card) {
      card = {
        tracker: { id: row.trackerId, decision: row.decision },
        changes: [],
        total: Number(row.total),
        definitionVersion: row.lockedVersion,
      };
      cards.set(row.trackerId, card);
    }
    if (card.changes.length < RECENT_CHANGES_PER_TRACKER) {
      card.changes.push({
        id: row.id,
        capturedAt: new Date(row.capturedAt),
        delta: row.delta,
        decisions: row.decisions,
        materiality: row.materiality,
        ...(row.runId ? { runId: row.runId } : {}),
      });
    }
  }
  return cards;
}

/**
 * One card per decision with material or notable changes in the last 30 days, failing trackers as one line
 * each, and an invitation when there is no tracker yet. Bounded whatever the history: one query reads at most
 * MAX_TRACKER_CARDS trackers (by their newest change) with at most RECENT_CHANGES_PER_TRACKER changes each, by
 * lateral joins on the (trackerId, capturedAt, id) index, plus a capped count for "n earlier".
 */
export function trackersSource(db: TDb, opts: { seenSince?: Date | null } = {}): TFeedSource {
  return {
    id: "trackers",
    async fetchItems({ userId, now }) {
      const since = new Date(now.getTime() - LOOKBACK_DAYS * 86_400_000);
      const [rows, failing] = await Promise.all([
        db.$queryRaw<TCardRow[]>`
          SELECT t.id AS "trackerId", t.decision, t."lockedVersion", t.capability, c.id, c."runId", c."capturedAt",
                 c.delta, c.decisions, c.materiality::text AS materiality, n.total
          FROM (
            SELECT t.id, t.decision, t."lockedVersion", t.capability, l.at
            FROM "Tracker" t
            CROSS JOIN LATERAL (
              SELECT e."capturedAt" AS at FROM "EntityChange" e
              WHERE e."trackerId" = t.id AND e.materiality IN ('material', 'notable') AND e."capturedAt" >= ${since}
              ORDER BY e."capturedAt" DESC, e.id DESC
              LIMIT 1
            ) l
            WHERE t."userId" = ${userId} AND t.status <> 'archived'
            ORDER BY l.at DESC, t.id DESC
            LIMIT ${MAX_TRACKER_CARDS}
          ) t
          CROSS JOIN LATERAL (
            SELECT e.id, e."runId", e."capturedAt", e.delta, e.decisions, e.materiality FROM "EntityChange" e
            WHERE e."trackerId" = t.id AND e.materiality IN ('material', 'notable') AND e."capturedAt" >= ${since}
            ORDER BY e."capturedAt" DESC, e.id DESC
            LIMIT ${RECENT_CHANGES_PER_TRACKER}
          ) c
          CROSS JOIN LATERAL (
            SELECT count(*)::int AS total FROM (
              SELECT 1 FROM "EntityChange" e
              WHERE e."trackerId" = t.id AND e.materiality IN ('material', 'notable') AND e."capturedAt" >= ${since}
              LIMIT ${COUNT_CAP}
            ) capped
          ) n
          ORDER BY t.at DESC, t.id DESC, c."capturedAt" DESC, c.id DESC`,
        db.tracker.findMany({
          // Failing and needs-attention trackers in the one read (docs/field-health.md).
          where: { userId, OR: [FAILING_WHERE, NEEDS_ATTENTION_WHERE] },
          select: {
            id: true,
            decision: true,
            lastError: true,
            consecutiveFailures: true,
            updatedAt: true,
            attentionReason: true,
          },
        }),
      ]);
      const cards = groupCardRows(rows);
      const definitions = await definitionFormats(db, rows);
      // A set's latest roll-up lists its members: their own entries of that run, for all set cards in one query.
      const setRuns = [...cards.values()]
        .filter((card) => definitions.get(card.tracker.id)?.isSet)
        .map((card) => card.changes[0]?.runId)
        .filter((runId): runId is string => typeof runId === "string");
      const loaded = await loadRollUpMembers(db, { runIds: setRuns });
      const capabilities = new Map(rows.map((r) => [r.trackerId, r.capability]));
      const items: TFeedItem[] = [];
      for (const card of cards.values()) {
        const definition = definitions.get(card.tracker.id);
        const runId = card.changes[0]?.runId;
        const set: TSetCardInput | null = definition?.isSet
          ? {
              noun: getCapability(capabilities.get(card.tracker.id) ?? "")?.draftSet?.member ?? null,
              latest: runId ? (loaded.get(runId) ?? null) : null,
            }
          : null;
        const item = trackerCardItem(
          { ...card, formats: definition?.formats ?? new Map(), set },
          opts.seenSince ?? null,
        );
        if (item) items.push(item);
      }
      for (const t of failing) {
        if (isFailing({ status: "active", consecutiveFailures: t.consecutiveFailures })) items.push(failingItem(t));
        else if (t.attentionReason) items.push(attentionItem({ ...t, attentionReason: t.attentionReason }));
      }
      if (items.length === 0) {
        // A draft nobody locked is not a tracker yet (the trackers list keeps them apart too).
        const any = await db.tracker.findFirst({
          where: { userId, NOT: { status: "draft", lockedVersion: null } },
          select: { id: true },
        });
        items.push(any ? quietItem(now) : startItem(now));
      }
      return items;
    },
  };
}

/**
 * Each card's field formats from the definition in force, in definition order, and whether it watches a set (one
 * query for all cards).
 */
async function definitionFormats(
  db: TDb,
  rows: readonly TCardRow[],
): Promise<Map<string, { formats: Map<string, TValueFormat>; isSet: boolean }>> {
  const locked = new Map<string, number>();
  for (const row of rows) if (row.lockedVersion !== null) locked.set(row.trackerId, row.lockedVersion);
  const formats = new Map<string, { formats: Map<string, TValueFormat>; isSet: boolean }>();
  if (locked.size === 0) return formats;
  const definitions = await db.trackerDefinition.findMany({
    where: { OR: [...locked].map(([trackerId, version]) => ({ trackerId, version })) },
    select: { trackerId: true, definition: true },
  });
  for (const row of definitions) {
    const parsed = parseDefinition(row.definition);
    if (parsed.ok)
      formats.set(row.trackerId, {
        formats: new Map(parsed.definition.fields.map((f) => [f.name, f])),
        isSet: parsed.definition.set !== undefined,
      });
  }
  return formats;
}

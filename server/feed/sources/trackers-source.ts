import { buildSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import type { TDb } from "@/server/db";
import type { ChangeMateriality } from "@/server/generated/prisma/client";
import { FAILING_WHERE } from "@/server/trackers";
import type { TFeedSource } from "../feed-engine";

const LOOKBACK_DAYS = 30;
const MAX_CHANGES = 50;

function show(value: unknown): string {
  if (value === null || value === undefined) return "—";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** The fields of an `EntityChange` row (with its tracker and entity) a change card shows. */
export type TChangeCardRow = {
  id: string;
  capturedAt: Date;
  delta: unknown;
  materiality: ChangeMateriality;
  tracker: { id: string; decision: string };
  entity: { entityKey: string };
};

/** A tracker the feed shows as failing. */
export type TFailingCardRow = {
  id: string;
  decision: string;
  lastError: string | null;
  consecutiveFailures: number;
  updatedAt: Date;
};

/** One material or notable change: its from → to rows, and slots for why it matters and what to check next. */
export function changeItem(c: TChangeCardRow): TFeedItem {
  const delta = (c.delta ?? {}) as Record<string, { from?: unknown; to?: unknown }>;
  const rows = Object.entries(delta).map(([field, d], i) => ({
    key: `row${i}`,
    type: "ChangeRow",
    props: { field, from: show(d?.from), to: show(d?.to) },
  }));
  const material = c.materiality === "material";
  return {
    id: `change:${c.id}`,
    sourceId: "trackers",
    type: "tracker-change",
    timestamp: c.capturedAt,
    data: {
      trackerId: c.tracker.id,
      decision: c.tracker.decision,
      entity: c.entity.entityKey,
      materiality: c.materiality,
      delta,
    },
    signals: { urgency: material ? 0.8 : 0.5, timeRelevance: "upcoming" },
    ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, [
      { key: "title", type: "Heading", props: { text: c.tracker.decision } },
      { key: "badge", type: "DeltaBadge", props: { label: c.materiality, tone: c.materiality } },
      ...rows,
      { key: "why", type: "Slot", props: { name: "why" } },
      { key: "next", type: "Slot", props: { name: "next" } },
      { key: "link", type: "Link", props: { href: `/trackers/${c.tracker.id}`, label: "Open tracker" } },
    ]),
    slots: {
      why: {
        description: `Why this change matters for the decision "${c.tracker.decision}" (one sentence)`,
        content: null,
      },
      next: { description: "What the user should check next, concretely (one sentence)", content: null },
    },
  };
}

/** A tracker whose refreshes keep failing: its last error and a link to it. */
export function failingItem(t: TFailingCardRow): TFeedItem {
  return {
    id: `failing:${t.id}`,
    sourceId: "trackers",
    type: "tracker-failing",
    timestamp: t.updatedAt,
    data: { trackerId: t.id, decision: t.decision, failures: t.consecutiveFailures },
    signals: { urgency: 0.6, timeRelevance: "ambient" },
    ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, [
      { key: "title", type: "Heading", props: { text: t.decision } },
      { key: "badge", type: "DeltaBadge", props: { label: "failing", tone: "failing" } },
      {
        key: "error",
        type: "Text",
        props: {
          text: `${t.consecutiveFailures} refreshes failed in a row. ${t.lastError ?? ""}`.trim(),
          tone: "danger",
        },
      },
      { key: "link", type: "Link", props: { href: `/trackers/${t.id}`, label: "Open tracker" } },
    ]),
  };
}

/** Material and notable changes, one card each with from → to rows; failing trackers as their own cards. */
export function trackersSource(db: TDb): TFeedSource {
  return {
    id: "trackers",
    async fetchItems({ userId, now }) {
      const since = new Date(now.getTime() - LOOKBACK_DAYS * 86_400_000);
      const [changes, failing] = await Promise.all([
        db.entityChange.findMany({
          where: { tracker: { userId }, materiality: { in: ["material", "notable"] }, capturedAt: { gte: since } },
          orderBy: [{ capturedAt: "desc" }, { id: "desc" }],
          take: MAX_CHANGES,
          include: { tracker: { select: { id: true, decision: true } }, entity: { select: { entityKey: true } } },
        }),
        db.tracker.findMany({
          where: { userId, ...FAILING_WHERE },
          select: { id: true, decision: true, lastError: true, consecutiveFailures: true, updatedAt: true },
        }),
      ]);
      const items = changes.map(changeItem);
      for (const t of failing) items.push(failingItem(t));
      return items;
    },
  };
}

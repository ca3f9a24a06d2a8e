import { buildSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import type { TDb } from "@/server/db";
import { FAILING_WHERE } from "@/server/trackers";
import type { TFeedSource } from "../feed-engine";

const LOOKBACK_DAYS = 30;
const MAX_CHANGES = 50;

function show(value: unknown): string {
  if (value === null || value === undefined) return "—";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
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
      const items: TFeedItem[] = changes.map((c) => {
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
      });
      for (const t of failing) {
        items.push({
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
        });
      }
      return items;
    },
  };
}

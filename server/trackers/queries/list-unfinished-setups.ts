import type { TDb, TTx } from "../../db";
import { findTarget, userTextsBySession } from "../../intelligence/setup";
import { titleFromMessage } from "../../intelligence/setup/tracker-title";
import { STALE_DRAFT_DAYS } from "../commands/discard-stale-drafts";
import { describeTarget } from "../views/tracker-summary-view";
import type { TUnfinishedSetup, TUnfinishedSetupsView } from "../views/unfinished-setup-view";

const DAY_MS = 24 * 60 * 60_000;

type TTarget = { capability: string; capabilityInput: unknown };

/**
 * Every unfinished setup of the person, most recent activity first — the one list /trackers and /trackers/new show
 * (docs/trackers.md, "Unfinished setups"): draft trackers never locked (whatever became of their conversation), open
 * edits of live trackers ("Editing v2 of …"), and open conversations that have not bound a page yet ("no address yet").
 * A conversation in which the person only ever sent addresses that could not be bound (refused, unreachable) is not
 * listed: a refused address leaves nothing behind unless the person goes on talking; it stays reachable at its own
 * address and goes with the 14-day cleanup of conversations that never bound a page. Three queries whatever the count.
 */
export async function listUnfinishedSetups(
  db: TDb | TTx,
  input: { userId: string; now?: Date },
): Promise<TUnfinishedSetupsView> {
  const asOf = input.now ?? new Date();
  const [drafts, sessions] = await Promise.all([
    db.tracker.findMany({
      where: { userId: input.userId, status: "draft", lockedVersion: null },
      select: {
        id: true,
        decision: true,
        capability: true,
        capabilityInput: true,
        updatedAt: true,
        setup: { select: { id: true, updatedAt: true } },
      },
    }),
    db.setupSession.findMany({
      where: {
        userId: input.userId,
        status: "open",
        OR: [{ trackerId: null }, { tracker: { lockedVersion: { not: null }, status: { not: "archived" } } }],
      },
      select: {
        id: true,
        updatedAt: true,
        tracker: { select: { id: true, decision: true, capability: true, capabilityInput: true, lockedVersion: true } },
      },
    }),
  ]);
  const talks = await userTextsBySession(
    db,
    sessions.filter((s) => !s.tracker).map((s) => s.id),
  );

  const items: (Omit<TUnfinishedSetup, "title"> & { base: string; host: string | null })[] = [];
  for (const t of drafts) {
    const lastActivityAt = new Date(Math.max(t.updatedAt.getTime(), t.setup?.updatedAt.getTime() ?? 0));
    items.push({
      key: t.setup?.id ?? `tracker:${t.id}`,
      kind: "new",
      sessionId: t.setup?.id ?? null,
      trackerId: t.id,
      decision: t.decision,
      base: t.decision,
      address: describeTarget(t.capability, t.capabilityInput),
      host: hostOf(t),
      editingVersion: null,
      lastActivityAt,
      discardAfter: new Date(lastActivityAt.getTime() + STALE_DRAFT_DAYS * DAY_MS),
    });
  }
  for (const s of sessions) {
    if (s.tracker) {
      const version = (s.tracker.lockedVersion ?? 0) + 1;
      items.push({
        key: s.id,
        kind: "edit",
        sessionId: s.id,
        trackerId: s.tracker.id,
        decision: s.tracker.decision,
        base: `Editing v${version} of ${s.tracker.decision}`,
        address: describeTarget(s.tracker.capability, s.tracker.capabilityInput),
        host: hostOf(s.tracker),
        editingVersion: version,
        lastActivityAt: s.updatedAt,
        discardAfter: null,
      });
      continue;
    }
    const texts = talks.get(s.id) ?? [];
    // Nothing said yet, or only addresses that were never bound: not an unfinished setup (see above).
    if (texts.every((text) => findTarget(text) !== null)) continue;
    const decision = decisionOf(texts);
    items.push({
      key: s.id,
      kind: "new",
      sessionId: s.id,
      trackerId: null,
      decision,
      base: decision,
      address: null,
      host: null,
      editingVersion: null,
      lastActivityAt: s.updatedAt,
      discardAfter: new Date(s.updatedAt.getTime() + STALE_DRAFT_DAYS * DAY_MS),
    });
  }
  items.sort((a, b) => b.lastActivityAt.getTime() - a.lastActivityAt.getTime() || a.key.localeCompare(b.key));
  return { asOf, setups: distinctTitles(items) };
}

/** The first thing the person said that makes a title (tracker-title.ts), else their first message, shortened. */
function decisionOf(texts: string[]): string {
  for (const text of texts) {
    const title = titleFromMessage(text);
    if (title) return title;
  }
  const first = texts[0] ?? "";
  return first.length > 120 ? `${first.slice(0, 119)}…` : first;
}

/**
 * Equal titles are told apart by where they look (the address's host, else the address, else "no address yet"), and
 * if that is equal too, by a number in the order they were last touched, oldest first.
 */
function distinctTitles(
  items: (Omit<TUnfinishedSetup, "title"> & { base: string; host: string | null })[],
): TUnfinishedSetup[] {
  const count = (titles: string[]) => {
    const n = new Map<string, number>();
    for (const t of titles) n.set(t.toLowerCase(), (n.get(t.toLowerCase()) ?? 0) + 1);
    return n;
  };
  const bases = count(items.map((i) => i.base));
  const withWhere = items.map((i) =>
    (bases.get(i.base.toLowerCase()) ?? 0) > 1 ? `${i.base} — ${i.host ?? i.address ?? "no address yet"}` : i.base,
  );
  const still = count(withWhere);
  const seen = new Map<string, number>();
  const titles = [...withWhere];
  // Numbered oldest first: the list is newest first, so walk it backwards.
  for (let i = items.length - 1; i >= 0; i--) {
    const title = withWhere[i] ?? "";
    if ((still.get(title.toLowerCase()) ?? 0) < 2) continue;
    const n = (seen.get(title.toLowerCase()) ?? 0) + 1;
    seen.set(title.toLowerCase(), n);
    titles[i] = `${title} (${n})`;
  }
  return items.map(({ base: _base, host: _host, ...item }, i) => ({ ...item, title: titles[i] ?? item.decision }));
}

/** "shop.example" of a page address; null for a place or anything without one. */
function hostOf(target: TTarget): string | null {
  const url = (target.capabilityInput as { url?: unknown } | null)?.url;
  if (typeof url !== "string") return null;
  try {
    return new URL(url).hostname.replace(/^www\./, "") || null;
  } catch {
    return null;
  }
}

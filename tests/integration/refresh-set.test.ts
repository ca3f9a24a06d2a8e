import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { countSql } from "../bench/sql-counter";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { feedFixture, feedSetDefinition, RSS } from "../helpers/feed-set";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * A tracker that watches a set (docs/sets.md), through the real feed.items capability on the local fixture site: the
 * baseline keeps every member; an unchanged feed (even reordered) is the floor's two statements; a new, an edited and
 * a missing entry are one roll-up entry with its notice, the members' own entries beside it; a member is gone only
 * after `missingAfter` reads without it; the cap keeps the first members and says so.
 */

const rss = feedFixture;
const definition = feedSetDefinition;

let t: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
});

async function feedTracker(path: string, body: string, overrides: Parameters<typeof definition>[0] = {}) {
  site.setPage(path, { body, contentType: RSS });
  const { tracker } = await createActiveTracker(t.db, {
    capability: "feed.items",
    capabilityInput: { url: site.urlFor(path) },
    definition: definition(overrides),
    decision: "What did the rival ship this month?",
  });
  return tracker.id;
}

const members = (trackerId: string) =>
  t.db.trackedEntity.findMany({
    where: { trackerId, entityKey: { startsWith: "item:" } },
    include: { state: true },
    orderBy: { entityKey: "asc" },
  });
/** The tracker's own entries: for a set, the roll-ups (the members' own entries are MemberChange rows). */
const rollUps = (trackerId: string) =>
  t.db.entityChange.findMany({ where: { trackerId }, orderBy: { capturedAt: "asc" } });
const memberEntries = (trackerId: string) =>
  t.db.memberChange.findMany({ where: { trackerId }, include: { entity: true }, orderBy: { capturedAt: "asc" } });

/** The v1 changelog with its items in reverse order (same entries, same text). */
function reordered(xml: string): string {
  const items = xml.match(/<item>[\s\S]*?<\/item>/g) ?? [];
  let i = items.length;
  return xml.replace(/<item>[\s\S]*?<\/item>/g, () => items[--i] as string);
}

describe("a set tracker (feed.items)", () => {
  it("keeps every member at the baseline, and an unchanged or reordered feed costs the floor", async () => {
    const trackerId = await feedTracker("/sets/changelog.rss", rss("changelog.rss.xml"));
    const base = await refreshTracker(t.db, trackerId, options());
    expect(base).toMatchObject({ status: "completed", outcome: "baseline" });
    const kept = await members(trackerId);
    expect(kept).toHaveLength(5);
    expect(kept.every((m) => m.state?.missingRuns === 0 && m.goneAt === null)).toBe(true);
    expect(kept.map((m) => (m.state?.fields as { title?: string } | undefined)?.title).filter(Boolean)).toHaveLength(5);
    // One baseline entry for the set, none per member.
    expect((await rollUps(trackerId)).map((c) => c.materiality)).toEqual(["baseline"]);
    expect(await memberEntries(trackerId)).toHaveLength(0);

    site.setPage("/sets/changelog.rss", { body: reordered(rss("changelog.rss.xml")), contentType: RSS });
    const sent: string[] = [];
    const counter = countSql(t.pglite, { onStatement: (sql) => sent.push(sql) });
    const again = await refreshTracker(t.db, trackerId, options()).finally(() => counter.restore());
    expect(again).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 0 });
    expect(counter.statements).toBeLessThanOrEqual(2);
    expect(await t.db.entityChange.count({ where: { trackerId } })).toBe(1);
    expect(await memberEntries(trackerId)).toHaveLength(0);
  });

  it("a new, an edited and a missing entry: one roll-up with its notice, gone only after missingAfter reads", async () => {
    const trackerId = await feedTracker("/sets/changelog-2.rss", rss("changelog.rss.xml"));
    await refreshTracker(t.db, trackerId, options());
    site.setPage("/sets/changelog-2.rss", { body: rss("changelog-v2.rss.xml"), contentType: RSS });

    const counter = countSql(t.pglite);
    const first = await refreshTracker(t.db, trackerId, options()).finally(() => counter.restore());
    // A changed set: the lease, the members in one query, and the one final write — whatever the number of members.
    expect(counter.statements).toBeLessThanOrEqual(3);
    // New entry appeared (material by the set's rule); the edited title is the member's own material change; the
    // removed entry is only missing once.
    expect(first).toMatchObject({ status: "completed", outcome: "material" });
    let rows = await rollUps(trackerId);
    expect(rows).toHaveLength(2);
    const roll = rows[1];
    expect(roll?.materiality).toBe("material");
    const delta = roll?.delta as Record<string, { from: unknown; to: unknown }>;
    expect(delta.appeared?.to).toEqual([expect.stringMatching(/comment/i)]);
    expect(delta.changed?.to).toEqual([expect.stringMatching(/edge regions/i)]);
    expect(delta.disappeared).toBeUndefined();
    // Each line says why, by code: the appeared rule for the new entry, the edited one's own material change.
    const why = roll?.decisions as Record<string, { verdict: string; decidedBy: string; reason: string }>;
    expect(why.appeared).toMatchObject({
      verdict: "material",
      decidedBy: "code",
      reason: expect.stringMatching(/^1 new item: /),
    });
    expect(why.changed).toMatchObject({ verdict: "material", reason: expect.stringMatching(/edge regions/i) });
    // The notice rides with the roll-up only: one outbox row for the run.
    expect(await t.db.changeOutbox.count({ where: { change: { trackerId } } })).toBe(1);
    // The members' own entries: the new one and the edited one (the missing one says nothing yet).
    const own = await memberEntries(trackerId);
    expect(
      own
        .map((e) => [
          e.entity.entityKey.includes("preview-comments")
            ? "new"
            : e.entity.entityKey.includes("edge-regions")
              ? "edited"
              : e.entity.entityKey,
          e.materiality,
        ])
        .sort(),
    ).toEqual([
      ["edited", "material"],
      ["new", "notable"],
    ]);
    let all = await members(trackerId);
    expect(all).toHaveLength(6);
    const deprecated = all.find((m) => m.entityKey.includes("deprecate-v1-api"));
    expect(deprecated?.state?.missingRuns).toBe(1);
    expect(deprecated?.goneAt).toBeNull();
    const edited = all.find((m) => m.entityKey.includes("edge-regions"));
    expect((edited?.state?.fields as { title?: string } | undefined)?.title).toMatch(/^Three new edge regions/);

    // The same v2 again: the missing entry is gone now (the second read without it), reported once.
    const second = await refreshTracker(t.db, trackerId, options());
    expect(second).toMatchObject({ status: "completed", outcome: "material" });
    rows = await rollUps(trackerId);
    const gone = rows[2]?.delta as Record<string, { from: unknown; to: unknown }>;
    expect(gone.disappeared?.from).toEqual(["Deprecation: the v1 Deployments API & what to use instead"]);
    expect(gone.members).toEqual({ from: 6, to: 5 });
    all = await members(trackerId);
    expect(all.find((m) => m.entityKey.includes("deprecate-v1-api"))?.goneAt).not.toBeNull();
    expect((await memberEntries(trackerId)).at(-1)?.delta).toEqual({ presence: { from: "listed", to: "gone" } });
    // A third identical read: nothing to say, at the floor.
    const third = await refreshTracker(t.db, trackerId, options());
    expect(third.outcome).toBe("unchanged");
    expect(await rollUps(trackerId)).toHaveLength(3);
  });

  it("one flaky read without an entry is no churn: back the next read, nothing recorded for it", async () => {
    const trackerId = await feedTracker("/sets/flaky.rss", rss("changelog.rss.xml"));
    await refreshTracker(t.db, trackerId, options());
    const withoutOne = rss("changelog.rss.xml").replace(/<item>[\s\S]*?<\/item>/, "");
    site.setPage("/sets/flaky.rss", { body: withoutOne, contentType: RSS });
    const missing = await refreshTracker(t.db, trackerId, options());
    expect(missing.outcome).toBe("unchanged");
    site.setPage("/sets/flaky.rss", { body: rss("changelog.rss.xml"), contentType: RSS });
    const back = await refreshTracker(t.db, trackerId, options());
    expect(back.outcome).toBe("unchanged");
    expect(await rollUps(trackerId)).toHaveLength(1);
    expect((await members(trackerId)).every((m) => m.state?.missingRuns === 0 && m.goneAt === null)).toBe(true);
  });

  it("keeps the first maxEntities members and says how many the feed listed", async () => {
    const trackerId = await feedTracker("/sets/capped.rss", rss("changelog.rss.xml"), { maxEntities: 3 });
    const base = await refreshTracker(t.db, trackerId, options());
    expect(base.outcome).toBe("baseline");
    expect(base.summary).toMatch(/lists 5 items; this tracker keeps the first 3/);
    expect(await members(trackerId)).toHaveLength(3);
  });

  it("an entry missing one read and back edited the next is one change: its state written once, its count reset", async () => {
    const trackerId = await feedTracker("/sets/back-edited.rss", rss("changelog.rss.xml"));
    await refreshTracker(t.db, trackerId, options());
    const withoutOne = rss("changelog.rss.xml").replace(/<item>[\s\S]*?<\/item>/, "");
    site.setPage("/sets/back-edited.rss", { body: withoutOne, contentType: RSS });
    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("unchanged");
    const edited = rss("changelog.rss.xml").replace(
      "Build cache is now shared across branches",
      "Build cache is now shared across branches and forks",
    );
    site.setPage("/sets/back-edited.rss", { body: edited, contentType: RSS });
    const back = await refreshTracker(t.db, trackerId, options());
    expect(back).toMatchObject({ status: "completed", outcome: "material" });
    const member = (await members(trackerId)).find((m) => m.entityKey.includes("build-cache"));
    expect(member?.state?.missingRuns).toBe(0);
    expect((member?.state?.fields as { title?: string } | undefined)?.title).toBe(
      "Build cache is now shared across branches and forks",
    );
    const delta = (await rollUps(trackerId)).at(-1)?.delta as Record<string, { to: unknown }>;
    expect(delta.changed?.to).toEqual(["Build cache is now shared across branches and forks"]);
  });
});

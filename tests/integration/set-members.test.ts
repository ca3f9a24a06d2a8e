import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TSetMemberSort, TSetMemberStatus, TSetMemberView } from "@/contracts/set-members";
import { createCaller } from "@/server/api/root";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { listSetMembers } from "@/server/trackers";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { feedFixture, feedSetDefinition, RSS } from "../helpers/feed-set";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * The tracker page's member list (docs/sets.md): a feed.items set tracker on the local fixture site, refreshed to its
 * baseline, then the v2 changelog twice — one entry appears, one goes missing and then gone. The query lists them
 * owner-checked, with each member's status, searched, sorted and paged by cursor without repeats or gaps.
 */

const rss = feedFixture;
const definition = feedSetDefinition();

const BUILD = "Build cache is now shared across branches";
const COMMENTS = "Comments on preview deployments";
const LOGS = "Deploy logs: search and filters";
const DEPRECATION = "Deprecation: the v1 Deployments API & what to use instead";
const NODE = "Node.js 24 is the default runtime";
const EDGE_V1 = "Two new edge regions: Johannesburg and Jakarta";
const EDGE_V2 = "Three new edge regions: Johannesburg, Jakarta and Querétaro";

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

async function setTracker(path: string) {
  site.setPage(path, { body: rss("changelog.rss.xml"), contentType: RSS });
  const { tracker, userId } = await createActiveTracker(t.db, {
    capability: "feed.items",
    capabilityInput: { url: site.urlFor(path) },
    definition,
    decision: "What did the rival ship this month?",
  });
  return { trackerId: tracker.id, userId };
}

/** Baseline, then the v2 changelog twice: the comments entry appears, the deprecation is missing, then gone. */
async function settle(path: string, trackerId: string) {
  expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("baseline");
  site.setPage(path, { body: rss("changelog-v2.rss.xml"), contentType: RSS });
  expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("material");
  expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("material");
}

const names = (members: TSetMemberView[]) => members.map((m) => m.name);
const byName = (members: TSetMemberView[], name: string) => members.find((m) => m.name === name);

describe("listSetMembers through a set's life", () => {
  it("lists the baseline, then an appeared member as new and a dropped one as missing, then gone", async () => {
    const path = "/members/life.rss";
    const { trackerId, userId } = await setTracker(path);
    const list = (status: TSetMemberStatus = "all") =>
      listSetMembers(t.db, { userId, trackerId, sort: "name", status });

    // Before the first refresh: a set tracker with no members yet.
    const before = await list();
    expect(before).toMatchObject({ watchesSet: true, members: [], total: 0, nextCursor: null });

    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("baseline");
    const base = await list();
    expect(base.total).toBe(5);
    expect(base.counts).toEqual({ all: 5, listed: 5, missing: 0, gone: 0 });
    expect(names(base.members)).toEqual([BUILD, LOGS, DEPRECATION, NODE, EDGE_V1]);
    // The baseline is the set, not news; its members have no entries of their own (the set's roll-up has it).
    expect(base.members.every((m) => !m.isNew && m.missingRuns === 0 && m.goneAt === null)).toBe(true);
    expect(base.members.every((m) => m.lastChangeAt === null)).toBe(true);
    const build = byName(base.members, BUILD);
    expect(build?.key).toBe("lumen-changelog-2026-12-03-build-cache");
    expect(build?.fields.map((f) => [f.label, f.text])).toEqual([
      ["Title", BUILD],
      [
        "Summary",
        "Builds on a new branch now start from the main branch’s cache, cutting cold builds by about 40%. Enabled for every project on the Team plan. Opt out with cache.shareAcrossBranches: false.",
      ],
    ]);

    site.setPage(path, { body: rss("changelog-v2.rss.xml"), contentType: RSS });
    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("material");
    const once = await list();
    expect(once.counts).toEqual({ all: 6, listed: 5, missing: 1, gone: 0 });
    const comments = byName(once.members, COMMENTS);
    expect(comments).toMatchObject({ key: "lumen-changelog-2026-12-08-preview-comments", isNew: true, missingRuns: 0 });
    expect(comments?.lastChangeAt).toEqual(comments?.firstSeenAt);
    expect(comments?.firstSeenAt.getTime()).toBeGreaterThan(build?.firstSeenAt.getTime() ?? Number.POSITIVE_INFINITY);
    const edge = byName(once.members, EDGE_V2);
    expect(edge).toMatchObject({ key: "lumen-changelog-2026-11-05-edge-regions", isNew: false });
    expect(edge?.lastChangeAt).toEqual(comments?.lastChangeAt);
    const missing = await list("missing");
    expect(missing.total).toBe(1);
    expect(missing.members).toHaveLength(1);
    expect(missing.members[0]).toMatchObject({ name: DEPRECATION, missingRuns: 1, goneAt: null, lastChangeAt: null });
    expect(names((await list("listed")).members)).toEqual([BUILD, COMMENTS, LOGS, NODE, EDGE_V2]);

    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("material");
    const twice = await list();
    expect(twice.counts).toEqual({ all: 6, listed: 5, missing: 0, gone: 1 });
    expect((await list("missing")).members).toEqual([]);
    const gone = await list("gone");
    expect(gone.total).toBe(1);
    expect(gone.members[0]).toMatchObject({ name: DEPRECATION, missingRuns: 2 });
    expect(gone.members[0]?.goneAt).toBeInstanceOf(Date);
    expect(gone.members[0]?.lastChangeAt).toEqual(gone.members[0]?.goneAt);
    expect(gone.members[0]?.goneAt?.getTime()).toBeGreaterThan(comments?.firstSeenAt.getTime() ?? 0);

    // "New" counts from the instant asked: a day and an hour later, the appeared entry is not new any more.
    const later = new Date((comments?.firstSeenAt.getTime() ?? 0) + 25 * 3_600_000);
    const dayAfter = await listSetMembers(t.db, { userId, trackerId, sort: "name", status: "all", now: later });
    expect(dayAfter.asOf).toEqual(later);
    expect(dayAfter.members.filter((m) => m.isNew)).toEqual([]);
  });
});

describe("listSetMembers on a settled set", () => {
  const path = "/members/settled.rss";
  let trackerId = "";
  let userId = "";
  const list = (input: {
    sort?: TSetMemberSort;
    status?: TSetMemberStatus;
    search?: string;
    limit?: number;
    cursor?: string;
  }) =>
    listSetMembers(t.db, { userId, trackerId, sort: input.sort ?? "name", status: input.status ?? "all", ...input });

  /** Every page after the first by its cursor, until nextCursor is null. */
  async function allPages(input: { sort: TSetMemberSort; status?: TSetMemberStatus; limit: number }) {
    const pages: TSetMemberView[][] = [];
    let cursor: string | null = null;
    do {
      const page = await listSetMembers(t.db, {
        userId,
        trackerId,
        status: "all",
        ...input,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.members.length).toBeLessThanOrEqual(input.limit);
      pages.push(page.members);
      cursor = page.nextCursor;
    } while (cursor && pages.length < 20);
    return pages;
  }

  beforeAll(async () => {
    ({ trackerId, userId } = await setTracker(path));
    await settle(path, trackerId);
  });

  it("sorts by name, by first seen (newest first) and by last change (never changed last)", async () => {
    expect(names((await list({ sort: "name" })).members)).toEqual([BUILD, COMMENTS, LOGS, DEPRECATION, NODE, EDGE_V2]);
    // The appeared entry first; the baseline's members share one instant and follow by key.
    expect(names((await list({ sort: "first_seen" })).members)).toEqual([
      COMMENTS,
      LOGS,
      NODE,
      DEPRECATION,
      EDGE_V2,
      BUILD,
    ]);
    // Gone in the third run, then the second run's two entries by key, then those never changed by key.
    expect(names((await list({ sort: "last_change" })).members)).toEqual([
      DEPRECATION,
      EDGE_V2,
      COMMENTS,
      LOGS,
      NODE,
      BUILD,
    ]);
  });

  it("pages with a small limit: every member once, in the same order as one page", async () => {
    for (const sort of ["name", "first_seen", "last_change"] as const) {
      const whole = names((await list({ sort, limit: 200 })).members);
      for (const limit of [1, 2, 4]) {
        const pages = await allPages({ sort, limit });
        expect(pages.map((p) => p.length)).toEqual(
          Array.from({ length: Math.ceil(6 / limit) }, (_, i) => Math.min(limit, 6 - i * limit)),
        );
        const paged = names(pages.flat());
        expect(paged, `${sort} by ${limit}`).toEqual(whole);
        expect(new Set(paged).size).toBe(6);
      }
    }
    // A filter pages the same way: the five listed members in pages of two.
    const listed = await allPages({ sort: "name", status: "listed", limit: 2 });
    expect(listed.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(names(listed.flat())).toEqual([BUILD, COMMENTS, LOGS, NODE, EDGE_V2]);
    const first = await list({ sort: "name", status: "listed", limit: 2 });
    expect(first.total).toBe(5);
    expect(first.nextCursor).toEqual(expect.any(String));
  });

  it("searches names, keys and field values, case-insensitively and literally", async () => {
    const deploy = await list({ search: "DEPLOY" });
    expect(names(deploy.members)).toEqual([COMMENTS, LOGS, DEPRECATION]);
    expect(deploy.total).toBe(3);
    expect(deploy.counts).toEqual({ all: 3, listed: 2, missing: 0, gone: 1 });
    expect(names((await list({ search: "deploy", status: "gone" })).members)).toEqual([DEPRECATION]);
    // Only in a summary; only in a key.
    expect(names((await list({ search: "qro1" })).members)).toEqual([EDGE_V2]);
    expect(names((await list({ search: "2026-11-27-node" })).members)).toEqual([NODE]);
    // LIKE's wildcards are plain characters: "%" is the one summary with a percent sign, "_" matches nothing.
    expect(names((await list({ search: "%" })).members)).toEqual([BUILD]);
    expect((await list({ search: "_" })).total).toBe(0);
    // Blank is no search.
    expect((await list({ search: "   " })).total).toBe(6);
  });

  it("is the owner's only: another person gets NOT_FOUND, a bad or foreign cursor BAD_REQUEST", async () => {
    const someone = await t.db.user.create({ data: { name: "Someone", email: "someone@example.test" } });
    await expect(
      listSetMembers(t.db, { userId: someone.id, trackerId, sort: "name", status: "all" }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(list({ sort: "name", cursor: "not-a-cursor" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    const named = await list({ sort: "name", limit: 2 });
    await expect(
      listSetMembers(t.db, {
        userId,
        trackerId,
        sort: "first_seen",
        status: "all",
        cursor: named.nextCursor ?? "",
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("says a tracker that watches no set has no members", async () => {
    const { tracker } = await createActiveTracker(t.db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url: "https://shop.example/one" },
      definition: {
        fields: [{ name: "price", type: "number", description: "Price" }],
        identityRule: { kind: "canonical_url" },
        materiality: { price: { kind: "numeric", relative: 0.05 } },
      },
    });
    const answer = await listSetMembers(t.db, { userId, trackerId: tracker.id, sort: "name", status: "all" });
    expect(answer).toMatchObject({ watchesSet: false, members: [], total: 0, nextCursor: null });
    expect(answer.counts).toEqual({ all: 0, listed: 0, missing: 0, gone: 0 });
  });

  it("answers tracker.setMembers with the contract's defaults and shape", async () => {
    const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
    const caller = createCaller(
      testTrpcContext(t.db, { id: user.id, name: user.name, email: user.email, role: "owner" }),
    );
    const answer = await caller.tracker.setMembers({ trackerId });
    expect(answer.watchesSet).toBe(true);
    expect(answer.total).toBe(6);
    expect(names(answer.members)).toEqual([BUILD, COMMENTS, LOGS, DEPRECATION, NODE, EDGE_V2]);
    const page = await caller.tracker.setMembers({ trackerId, sort: "last_change", status: "listed", limit: 1 });
    expect(names(page.members)).toEqual([EDGE_V2]);
    expect(page.total).toBe(5);
    await expect(caller.tracker.setMembers({ trackerId, limit: 201 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

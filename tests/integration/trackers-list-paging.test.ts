import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  TRACKERS_API_DEFAULT_LIMIT,
  TRACKERS_PAGE_SIZE,
  type TTrackerListFilter,
  ZListTrackersRequestSchema,
  ZTrackersListRequestSchema,
} from "@/contracts/trackers";
import { AppError } from "@/server/errors";
import { FAILING_AFTER, getTrackersList, pageTrackerSummaries } from "@/server/trackers";
import { createTestDb, type TTestDb } from "../helpers/db";

/**
 * The trackers list a page at a time (docs/trackers.md, "Paging, search and filters"): at a few thousand trackers
 * every page holds at most the page size, the pages walked with their cursors list each tracker once in the list's
 * order, the "Show" counts and the search are right, and nobody else's tracker appears. Sizes and counts only, never
 * wall-clock.
 */

const N = 3000;
const PAGE = TRACKERS_PAGE_SIZE;
const BASE = Date.parse("2026-01-01T00:00:00.000Z");

type TSeed = {
  id: string;
  decision: string;
  url: string;
  status: "active" | "paused" | "archived" | "draft";
  lockedVersion: number | null;
  consecutiveFailures: number;
  attentionReason: string | null;
  createdAt: Date;
};

let t: TTestDb;
const seeds: TSeed[] = [];

/** Which of the seeded trackers each filter lists (the definitions the page promises, written out again here). */
const EXPECTED: Record<TTrackerListFilter, (s: TSeed) => boolean> = {
  current: (s) => s.status !== "archived",
  active: (s) => s.status === "active",
  failing: (s) => s.status === "active" && s.consecutiveFailures >= FAILING_AFTER,
  needs_attention: (s) => s.status === "active" && s.attentionReason !== null,
  paused: (s) => s.status === "paused",
  archived: (s) => s.status === "archived",
  all: () => true,
};

/** The list's order: newest first, then id (pairs share a creation instant, so the tie-break is exercised). */
const byListOrder = (a: TSeed, b: TSeed) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

beforeAll(async () => {
  t = await createTestDb();
  await t.db.user.createMany({
    data: [
      { id: "alice", name: "Alice" },
      { id: "bob", name: "Bob" },
    ],
  });
  for (let i = 0; i < N; i++) {
    const kind = i % 10;
    seeds.push({
      id: `t${String(i).padStart(5, "0")}`,
      // Every 97th names Acme in the decision, every 101st only in its address (in capitals).
      decision: i % 97 === 0 ? `Is Acme pulling ahead? #${i}` : i === 5 ? "Discount 50% off?" : `Watch product ${i}`,
      url: i % 101 === 0 ? `https://ACME.example/p/${i}` : `https://shop${i % 7}.example/p/${i}`,
      status: kind === 0 ? "archived" : kind === 1 ? "paused" : "active",
      lockedVersion: 1,
      consecutiveFailures: kind === 2 ? FAILING_AFTER : kind === 4 ? FAILING_AFTER - 1 : 0,
      attentionReason: kind === 3 ? "Price has read nothing for 3 runs" : null,
      createdAt: new Date(BASE + Math.floor(i / 2) * 1000),
    });
  }
  const row = (s: TSeed, userId: string) => ({
    id: s.id,
    userId,
    decision: s.decision,
    capability: "web.scrape",
    capabilityInput: { url: s.url },
    status: s.status,
    lockedVersion: s.lockedVersion,
    consecutiveFailures: s.consecutiveFailures,
    attentionReason: s.attentionReason,
    createdAt: s.createdAt,
  });
  const seedAt = (i: number) => {
    const seed = seeds[i];
    if (!seed) throw new Error(`no seed ${i}`);
    return seed;
  };
  await t.db.tracker.createMany({ data: seeds.map((s) => row(s, "alice")) });
  // Two drafts never locked (unfinished setups, listed apart) and Bob's trackers, Acme ones among them.
  await t.db.tracker.createMany({
    data: [
      { ...row({ ...seedAt(1), id: "draft-1", status: "draft", lockedVersion: null }, "alice") },
      { ...row({ ...seedAt(2), id: "draft-2", status: "draft", lockedVersion: null }, "alice") },
      ...Array.from({ length: 60 }, (_, i) => ({
        ...row({ ...seedAt(i), id: `bob-${i}`, decision: `Acme for Bob ${i}` }, "bob"),
      })),
    ],
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const expected = (show: TTrackerListFilter, match: (s: TSeed) => boolean = () => true) =>
  seeds.filter((s) => EXPECTED[show](s) && match(s)).sort(byListOrder);

describe("the trackers page's list", () => {
  it("the first page holds the page size, the newest first, with every filter's count", async () => {
    const view = await getTrackersList(t.db, { userId: "alice" });
    expect(view.trackers).toHaveLength(PAGE);
    expect(view.trackers.map((r) => r.id)).toEqual(
      expected("current")
        .slice(0, PAGE)
        .map((s) => s.id),
    );
    const counts = Object.fromEntries(
      (Object.keys(EXPECTED) as TTrackerListFilter[]).map((show) => [show, expected(show).length]),
    );
    expect(view.counts).toEqual(counts);
    expect(view.total).toBe(counts.current);
    expect(view.nextCursor).not.toBeNull();
    expect(view.drafts.map((d) => d.id).sort()).toEqual(["draft-1", "draft-2"]);
  });

  it.each(["current", "failing", "paused", "all"] as const)(
    "walking %s by cursor lists each tracker once, in order, never more than a page at a time",
    async (show) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const view = await getTrackersList(t.db, { userId: "alice", show, cursor, limit: 100 });
        expect(view.trackers.length).toBeLessThanOrEqual(100);
        if (pages > 0) expect(view.drafts).toEqual([]);
        ids.push(...view.trackers.map((r) => r.id));
        cursor = view.nextCursor;
        pages++;
      } while (cursor);
      const want = expected(show).map((s) => s.id);
      expect(ids).toEqual(want);
      expect(pages).toBe(Math.max(1, Math.ceil(want.length / 100)));
    },
    60_000,
  );

  it("failing and needs attention list only what the tracker page calls so", async () => {
    const failing = await getTrackersList(t.db, { userId: "alice", show: "failing" });
    expect(failing.trackers.every((r) => r.failing)).toBe(true);
    expect(failing.total).toBe(N / 10);
    const attention = await getTrackersList(t.db, { userId: "alice", show: "needs_attention" });
    expect(attention.trackers.every((r) => r.needsAttention)).toBe(true);
    expect(attention.total).toBe(N / 10);
  });

  it("searches the decision and the address, case-insensitively, with counts within the search", async () => {
    const isAcme = (s: TSeed) => /acme/i.test(s.decision) || /acme/i.test(s.url);
    const view = await getTrackersList(t.db, { userId: "alice", show: "all", q: "  aCmE " });
    expect(view.trackers.map((r) => r.id)).toEqual(
      expected("all", isAcme)
        .slice(0, PAGE)
        .map((s) => s.id),
    );
    expect(view.total).toBe(expected("all", isAcme).length);
    expect(view.counts.archived).toBe(expected("archived", isAcme).length);
    expect(view.trackers.some((r) => r.target.includes("ACME"))).toBe(true);
    // Bob's Acme trackers never appear in Alice's list, nor hers in his.
    expect(view.trackers.some((r) => r.id.startsWith("bob-"))).toBe(false);
    const bobs = await getTrackersList(t.db, { userId: "bob", show: "all", q: "acme", limit: 100 });
    expect(bobs.total).toBe(60);
    expect(bobs.trackers.every((r) => r.id.startsWith("bob-"))).toBe(true);
    // % is a character, not a wildcard.
    const percent = await getTrackersList(t.db, { userId: "alice", show: "all", q: "50%" });
    expect(percent.trackers.map((r) => r.decision)).toEqual(["Discount 50% off?"]);
    const none = await getTrackersList(t.db, { userId: "alice", q: "no such words" });
    expect([none.total, none.trackers.length, none.nextCursor]).toEqual([0, 0, null]);
  });

  it("refuses a cursor it did not make, and bounds the page size in the contract", async () => {
    await expect(getTrackersList(t.db, { userId: "alice", cursor: "bm90IGEgY3Vyc29y" })).rejects.toBeInstanceOf(
      AppError,
    );
    expect(ZTrackersListRequestSchema.safeParse({ limit: 101 }).success).toBe(false);
    expect(ZTrackersListRequestSchema.parse({})).toEqual({ show: "current", limit: PAGE });
  });
});

describe("the API's list (GET /api/v1/trackers, tracker.list)", () => {
  it("answers at most the default page, then pages on by nextCursor to the last", async () => {
    const input = ZListTrackersRequestSchema.parse({});
    expect(input.limit).toBe(TRACKERS_API_DEFAULT_LIMIT);
    const first = await pageTrackerSummaries(t.db, { userId: "alice", ...input });
    expect(first.trackers).toHaveLength(TRACKERS_API_DEFAULT_LIMIT);
    const ids = [...first.trackers.map((r) => r.id)];
    let cursor = first.nextCursor;
    while (cursor) {
      const next = await pageTrackerSummaries(t.db, { userId: "alice", limit: 500, cursor });
      expect(next.trackers.length).toBeLessThanOrEqual(500);
      ids.push(...next.trackers.map((r) => r.id));
      cursor = next.nextCursor;
    }
    // Every tracker, drafts included (the API lists them with their status), once.
    expect(ids).toHaveLength(N + 2);
    expect(new Set(ids).size).toBe(N + 2);
    expect(ZListTrackersRequestSchema.safeParse({ limit: "501" }).success).toBe(false);
    const failing = await pageTrackerSummaries(t.db, { userId: "alice", status: "failing", limit: 500 });
    expect(failing.trackers).toHaveLength(N / 10);
    expect(failing.nextCursor).toBeNull();
  });
});

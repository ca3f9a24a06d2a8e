import { getDynamicParam } from "next/dist/shared/lib/router/utils/get-dynamic-param";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberKeyFromPageParam, setMemberHref } from "@/components/trackers/set-member-href";
import type { TMemberChangeEntry } from "@/contracts/set-member";
import { createCaller } from "@/server/api/root";
import type { TSessionUser } from "@/server/api/session-user";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { getSetMember } from "@/server/trackers/queries/get-set-member";
import { listMemberChanges } from "@/server/trackers/queries/list-member-changes";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { feedFixture, feedSetDefinition, RSS } from "../helpers/feed-set";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * The member page's data (docs/sets.md, docs/trackers.md): one member of a feed.items set on the local fixture site,
 * refreshed through the real refresh path while the feed moves between its two fixtures — an entry appears, one goes
 * missing, then gone, then comes back, and one entry's title flips on every read. getSetMember says what each member
 * is now; listMemberChanges pages its own entries (MemberChange) newest first. Owner only, like every tracker read.
 */

const definition = feedSetDefinition();

const BUILD_KEY = "lumen-changelog-2026-12-03-build-cache";
const COMMENTS_KEY = "lumen-changelog-2026-12-08-preview-comments";
const DEPRECATION_KEY = "lumen-changelog-2026-10-22-deprecate-v1-api";
const EDGE_KEY = "lumen-changelog-2026-11-05-edge-regions";
const NODE_KEY = "https://lumen.example/changelog/2026-11-27-node-24";
const BUILD = "Build cache is now shared across branches";
const COMMENTS = "Comments on preview deployments";
const DEPRECATION = "Deprecation: the v1 Deployments API & what to use instead";
const EDGE_V1 = "Two new edge regions: Johannesburg and Jakarta";
const EDGE_V2 = "Three new edge regions: Johannesburg, Jakarta and Querétaro";

let t: TTestDb;
let site: TFixtureSite;
let userId = "";
let trackerId = "";
const path = "/member-page/changelog.rss";

const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
});

/** The feed as `name` says, then one refresh through the real path; its outcome. */
async function readFeed(name: "changelog.rss.xml" | "changelog-v2.rss.xml") {
  site.setPage(path, { body: feedFixture(name), contentType: RSS });
  return (await refreshTracker(t.db, trackerId, options())).outcome;
}

const member = (key: string, now?: Date) => getSetMember(t.db, { userId, trackerId, key, ...(now ? { now } : {}) });
const changes = (key: string, extra: { cursor?: string; limit?: number } = {}) =>
  listMemberChanges(t.db, { userId, trackerId, key, ...extra });
const kinds = (entries: TMemberChangeEntry[]) => entries.map((e) => e.kind);

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  site.setPage(path, { body: feedFixture("changelog.rss.xml"), contentType: RSS });
  ({
    userId,
    tracker: { id: trackerId },
  } = await createActiveTracker(t.db, {
    capability: "feed.items",
    capabilityInput: { url: site.urlFor(path) },
    definition,
    decision: "What did the rival ship this month?",
  }));
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

describe("a member through the set's life", () => {
  it("baseline: each member's values and fields, listed, not new, with no entries of its own", async () => {
    expect(await readFeed("changelog.rss.xml")).toBe("baseline");
    const build = await member(BUILD_KEY);
    expect(build.tracker).toEqual({ id: trackerId, decision: "What did the rival ship this month?" });
    expect(build.member).toMatchObject({
      key: BUILD_KEY,
      name: BUILD,
      url: null,
      status: "listed",
      missingRuns: 0,
      goneAt: null,
      isNew: false,
      lastChangeAt: null,
    });
    expect(build.member.values.title).toBe(BUILD);
    expect(build.member.values.summary).toEqual(expect.stringContaining("cutting cold builds by about 40%"));
    expect(build.member.fields.map((f) => f.label)).toEqual(["Title", "Summary"]);
    expect(build.member.fields[0]?.text).toBe(BUILD);
    // A key that is a web address is the member's link.
    expect((await member(NODE_KEY)).member.url).toBe(NODE_KEY);
    expect(await changes(BUILD_KEY)).toEqual({ trackerId, key: BUILD_KEY, entries: [], nextCursor: null });
  });

  it("v2: the new entry appeared (new), the dropped one is missing 1 read, the edited one changed", async () => {
    expect(await readFeed("changelog-v2.rss.xml")).toBe("material");
    const comments = (await member(COMMENTS_KEY)).member;
    expect(comments).toMatchObject({ name: COMMENTS, status: "listed", isNew: true, missingRuns: 0 });
    expect(comments.lastChangeAt).toEqual(comments.firstSeenAt);
    const appeared = (await changes(COMMENTS_KEY)).entries;
    expect(kinds(appeared)).toEqual(["appeared"]);
    expect(appeared[0]?.at).toEqual(comments.firstSeenAt);
    expect(appeared[0]?.materiality).toBe("notable");
    expect(appeared[0]?.fields[0]).toMatchObject({ field: "title", before: null, after: COMMENTS, text: COMMENTS });

    // "New" counts from the instant asked: a day and an hour later it is not new any more.
    const later = new Date(comments.firstSeenAt.getTime() + 25 * 3_600_000);
    expect((await member(COMMENTS_KEY, later)).member.isNew).toBe(false);

    const deprecation = (await member(DEPRECATION_KEY)).member;
    expect(deprecation).toMatchObject({ name: DEPRECATION, status: "missing", missingRuns: 1, goneAt: null });
    // Missing is not yet an entry: only gone is.
    expect((await changes(DEPRECATION_KEY)).entries).toEqual([]);

    const edge = (await changes(EDGE_KEY)).entries;
    expect(kinds(edge)).toEqual(["changed"]);
    expect(edge[0]?.materiality).toBe("material");
    const title = edge[0]?.fields.find((f) => f.field === "title");
    expect(title).toMatchObject({
      label: "Title",
      before: EDGE_V1,
      after: EDGE_V2,
      text: `${EDGE_V1} → ${EDGE_V2}`,
      verdict: "material",
      decidedBy: "code",
    });
    expect(title?.reason).toEqual(expect.any(String));
    expect(title?.reason?.length).toBeGreaterThan(0);
    expect(edge[0]?.definitionVersion).toBe(1);
    expect((await member(EDGE_KEY)).member).toMatchObject({ name: EDGE_V2, lastChangeAt: edge[0]?.at });
  });

  it("v2 again: the dropped entry is gone since that read; v1: it is back", async () => {
    expect(await readFeed("changelog-v2.rss.xml")).toBe("material");
    const gone = (await member(DEPRECATION_KEY)).member;
    expect(gone).toMatchObject({ status: "gone", missingRuns: 2 });
    expect(gone.goneAt).toBeInstanceOf(Date);
    expect(gone.lastChangeAt).toEqual(gone.goneAt);
    // Its last values stay readable after it is gone.
    expect(gone.values.title).toBe(DEPRECATION);
    const goneEntries = (await changes(DEPRECATION_KEY)).entries;
    expect(kinds(goneEntries)).toEqual(["gone"]);
    expect(goneEntries[0]?.at).toEqual(gone.goneAt);
    expect(goneEntries[0]?.fields).toEqual([]);

    expect(await readFeed("changelog.rss.xml")).toBe("material");
    const back = (await member(DEPRECATION_KEY)).member;
    expect(back).toMatchObject({ status: "listed", missingRuns: 0, goneAt: null, isNew: false });
    const entries = (await changes(DEPRECATION_KEY)).entries;
    expect(kinds(entries)).toEqual(["back", "gone"]);
    expect(entries[0]?.fields.find((f) => f.field === "title")).toMatchObject({
      after: DEPRECATION,
      text: DEPRECATION,
    });
    // The entry that appeared in v2 is missing from this v1 read.
    expect((await member(COMMENTS_KEY)).member).toMatchObject({ status: "missing", missingRuns: 1 });
  });
});

describe("a member's changes, paged", () => {
  beforeAll(async () => {
    // Two more flips of the edited title: four entries for the edge regions in all (v2, v1, v2, v1).
    expect(await readFeed("changelog-v2.rss.xml")).toBe("material");
    expect(await readFeed("changelog.rss.xml")).toBe("material");
  });

  it("pages newest first by cursor: every entry once, in the one page's order, whatever the limit", async () => {
    const whole = await changes(EDGE_KEY, { limit: 100 });
    expect(whole.nextCursor).toBeNull();
    expect(whole.entries).toHaveLength(4);
    expect(whole.entries.map((e) => e.fields.find((f) => f.field === "title")?.after)).toEqual([
      EDGE_V1,
      EDGE_V2,
      EDGE_V1,
      EDGE_V2,
    ]);
    const times = whole.entries.map((e) => e.at.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const limit of [1, 3]) {
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await changes(EDGE_KEY, { limit, ...(cursor ? { cursor } : {}) });
        pages.push(page.entries.map((e) => e.id));
        cursor = page.nextCursor;
      } while (cursor && pages.length < 10);
      expect(pages.map((p) => p.length)).toEqual(limit === 1 ? [1, 1, 1, 1] : [3, 1]);
      expect(pages.flat()).toEqual(whole.entries.map((e) => e.id));
    }
    // The default page holds them all; the limit is bounded.
    expect((await changes(EDGE_KEY)).entries).toHaveLength(4);
    expect((await changes(EDGE_KEY, { limit: 10_000 })).entries).toHaveLength(4);
  });

  it("refuses a cursor it did not make", async () => {
    await expect(changes(EDGE_KEY, { cursor: "not-a-cursor" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const forged = Buffer.from(JSON.stringify({ t: "yesterday", i: "x" })).toString("base64url");
    await expect(changes(EDGE_KEY, { cursor: forged })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("who may read a member", () => {
  it("another person, an unknown key and a tracker that watches no set are NOT_FOUND", async () => {
    const someone = await t.db.user.create({ data: { name: "Someone", email: "someone@member-page.test" } });
    for (const read of [getSetMember, listMemberChanges]) {
      await expect(read(t.db, { userId: someone.id, trackerId, key: EDGE_KEY })).rejects.toMatchObject({
        code: "NOT_FOUND",
        message: "Tracker not found.",
      });
      await expect(read(t.db, { userId, trackerId, key: "no-such-entry" })).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    }
    const { tracker: single } = await createActiveTracker(t.db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url: "https://shop.example/one" },
      definition: {
        fields: [{ name: "price", type: "number", description: "Price" }],
        identityRule: { kind: "canonical_url" },
        materiality: { price: { kind: "numeric", relative: 0.05 } },
      },
    });
    await expect(getSetMember(t.db, { userId, trackerId: single.id, key: EDGE_KEY })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "This tracker does not watch a set, so it has no members.",
      details: { watchesSet: false },
    });
  });

  it("tracker.setMember and tracker.memberChanges answer the owner with the contracts' shapes, others NOT_FOUND", async () => {
    const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
    const me: TSessionUser = { id: user.id, name: user.name, email: user.email, role: "owner" };
    const caller = createCaller(testTrpcContext(t.db, me));
    const detail = await caller.tracker.setMember({ trackerId, key: EDGE_KEY });
    expect(detail.member).toMatchObject({ key: EDGE_KEY, name: EDGE_V1, status: "listed" });
    expect(detail.member.firstSeenAt).toBeInstanceOf(Date);
    const first = await caller.tracker.memberChanges({ trackerId, key: EDGE_KEY, limit: 2 });
    expect(first.entries).toHaveLength(2);
    const rest = await caller.tracker.memberChanges({ trackerId, key: EDGE_KEY, cursor: first.nextCursor });
    expect(rest.entries).toHaveLength(2);
    expect(rest.nextCursor).toBeNull();
    await expect(caller.tracker.memberChanges({ trackerId, key: EDGE_KEY, limit: 101 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(caller.tracker.setMember({ trackerId, key: "" })).rejects.toMatchObject({ code: "BAD_REQUEST" });

    const other = await t.db.user.create({ data: { name: "Other", email: "other@member-page.test" } });
    const theirs = createCaller(
      testTrpcContext(t.db, { id: other.id, name: other.name, email: other.email, role: "member" }),
    );
    await expect(theirs.tracker.setMember({ trackerId, key: EDGE_KEY })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(theirs.tracker.memberChanges({ trackerId, key: EDGE_KEY })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});

describe("the member page's address", () => {
  it("carries the key as one encoded segment, and the page decodes Next's re-encoded param exactly once", () => {
    for (const key of [NODE_KEY, "sku/100%25 cotton?", "café/☕ a+b", "https://shop.example/p?size=50%"]) {
      const href = setMemberHref("trk1", key);
      const segment = href.split("/").at(-1) ?? "";
      expect(href).toBe(`/trackers/trk1/members/${segment}`);
      // What Next 16 passes a page or layout component for the segment it matched (and decoded once): re-encoded.
      // If Next ever passes it decoded instead, this fails, and memberKeyFromPageParam must change with it.
      const passed = getDynamicParam({ key: decodeURIComponent(segment) }, "key", "d", null, null).value;
      expect(passed).toBe(segment);
      expect(memberKeyFromPageParam(passed as string)).toBe(key);
    }
    // Not percent-encoding at all: taken as it is rather than failing the page.
    expect(memberKeyFromPageParam("50%off")).toBe("50%off");
  });
});

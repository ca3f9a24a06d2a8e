import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createApiToken } from "@/server/api-tokens";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { feedSetDefinition, RSS } from "../helpers/feed-set";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * The public API's members endpoints (docs/api.md), curl-style: real Request objects through the /api/v1 handler with
 * an API token, over a feed watched as a set (docs/sets.md) on the local fixture site and refreshed through the real
 * refresh path. The feed's entry ids are the awkward keys real sets have — addresses with `/`, `?`, `&` and `%`, a key
 * that already holds a percent escape, `+`, spaces and non-ASCII — so each travels percent-encoded as one path segment
 * and must come back as exactly itself.
 */

const MUG = "https://shop.example/catalog/mugs?colour=blue&size=50%";
const SHIRT = "sku/100%25 cotton?";
const PLAIN = "plain-key";
const CAFE = "café/☕ a+b";
const KEYS = [MUG, SHIRT, PLAIN, CAFE];

/** An RSS feed whose entries have these ids; the mug's title carries `n`, so every read after the first changes it. */
function feed(n: number, keys: string[]): string {
  const xml = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;");
  const titles: Record<string, string> = {
    [MUG]: `Blue mug, edition ${n}`,
    [SHIRT]: "Cotton shirt",
    [PLAIN]: "Plain entry",
    [CAFE]: "Café of the month",
  };
  const items = keys
    .map(
      (key) => `<item><title>${xml(titles[key] ?? key)}</title><guid isPermaLink="false">${xml(key)}</guid>
        <description>About ${xml(titles[key] ?? key)}</description></item>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Shop news</title>
    <link>https://shop.example/</link><description>News</description>${items}</channel></rss>`;
}

let t: TTestDb;
let site: TFixtureSite;
let token = "";
let otherToken = "";
let setId = "";
let singleId = "";
const path = "/api-members/feed.rss";

async function read(n: number, keys: string[]) {
  site.setPage(path, { body: feed(n, keys), contentType: RSS });
  const options: TRefreshOptions = {
    trigger: "manual",
    models: { filler: null, judge: null },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
  };
  return (await refreshTracker(t.db, setId, options)).outcome;
}

/** `curl -H "Authorization: Bearer …" http://app/api/v1<path>` (the path as sent: already encoded). */
async function get(apiPath: string, auth: string = token) {
  const response = await handleRestRequest(
    new Request(`http://app/api/v1${apiPath}`, { headers: { authorization: `Bearer ${auth}` } }),
    { db: t.db },
  );
  return { status: response.status, body: await response.json() };
}
const memberPath = (key: string, trackerId = setId) => `/trackers/${trackerId}/members/${encodeURIComponent(key)}`;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  const me = await ensureLocalUser(t.db);
  token = (await createApiToken(t.db, { userId: me.id, name: "ci" })).token;
  const other = await t.db.user.create({ data: { name: "Someone else", email: "other@api-members.test" } });
  otherToken = (await createApiToken(t.db, { userId: other.id, name: "theirs" })).token;
  site.setPage(path, { body: feed(1, KEYS), contentType: RSS });
  setId = (
    await createActiveTracker(t.db, {
      userId: me.id,
      capability: "feed.items",
      capabilityInput: { url: site.urlFor(path) },
      definition: feedSetDefinition(),
      decision: "What is new in the shop?",
    })
  ).tracker.id;
  singleId = (
    await createActiveTracker(t.db, {
      userId: me.id,
      capability: "web.scrape",
      capabilityInput: { url: "https://shop.example/one" },
      definition: {
        fields: [{ name: "price", type: "number", description: "Price" }],
        identityRule: { kind: "canonical_url" },
        materiality: { price: { kind: "numeric", relative: 0.05 } },
      },
    })
  ).tracker.id;
  // Baseline with all four; then the mug's title moves twice and the café is missing, then gone.
  expect(await read(1, KEYS)).toBe("baseline");
  expect(await read(2, [MUG, SHIRT, PLAIN])).toBe("material");
  expect(await read(3, [MUG, SHIRT, PLAIN])).toBe("material");
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

describe("GET /api/v1/trackers/{id}/members", () => {
  it("lists the set's members with their keys as stored, searched, filtered and paged by nextCursor", async () => {
    const all = await get(`/trackers/${setId}/members`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ watchesSet: true, total: 4, counts: { all: 4, listed: 3, missing: 0, gone: 1 } });
    expect(all.body.members.map((m: { key: string }) => m.key).sort()).toEqual([...KEYS].sort());
    expect(typeof all.body.asOf).toBe("string");

    const gone = await get(`/trackers/${setId}/members?status=gone`);
    expect(gone.body.members.map((m: { key: string }) => m.key)).toEqual([CAFE]);
    const search = await get(`/trackers/${setId}/members?search=${encodeURIComponent("size=50%")}`);
    expect(search.body.members.map((m: { key: string }) => m.key)).toEqual([MUG]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(
        `/trackers/${setId}/members?sort=first_seen&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.members.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.members.map((m: { key: string }) => m.key));
      cursor = page.body.nextCursor;
    } while (cursor && seen.length < 10);
    expect(seen.sort()).toEqual([...KEYS].sort());

    expect((await get(`/trackers/${setId}/members?limit=201`)).status).toBe(400);
    expect((await get(`/trackers/${setId}/members?sort=price`)).status).toBe(400);
  });

  it("says a tracker that watches no set has no members: 200 with watchesSet false", async () => {
    const res = await get(`/trackers/${singleId}/members`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ watchesSet: false, members: [], total: 0, nextCursor: null });
  });
});

describe("GET /api/v1/trackers/{id}/members/{key}", () => {
  it.each(KEYS)("reads the member whose key is %j from its percent-encoded segment", async (key) => {
    const res = await get(memberPath(key));
    expect(res.status).toBe(200);
    expect(res.body.member.key).toBe(key);
    expect(res.body.tracker).toEqual({ id: setId, decision: "What is new in the shop?" });
  });

  it("answers its status, fields, values and address as JSON", async () => {
    const mug = (await get(memberPath(MUG))).body.member;
    expect(mug).toMatchObject({
      name: "Blue mug, edition 3",
      url: MUG,
      status: "listed",
      missingRuns: 0,
      goneAt: null,
      isNew: false,
      values: { title: "Blue mug, edition 3", summary: "About Blue mug, edition 3" },
    });
    expect(mug.fields.map((f: { label: string }) => f.label)).toEqual(["Title", "Summary"]);
    expect(Number.isNaN(Date.parse(mug.firstSeenAt))).toBe(false);
    expect(Date.parse(mug.lastChangeAt)).toBeGreaterThan(Date.parse(mug.firstSeenAt));

    const cafe = (await get(memberPath(CAFE))).body.member;
    expect(cafe).toMatchObject({ status: "gone", missingRuns: 2, url: null, name: "Café of the month" });
    expect(cafe.goneAt).toBe(cafe.lastChangeAt);
  });

  it("decodes the segment exactly once and refuses what is not percent-encoding", async () => {
    // "%25" in the key is sent as "%2525": decoded once it is the key; decoded twice it would name no member.
    expect(encodeURIComponent(SHIRT)).toContain("%2525");
    expect((await get(memberPath(SHIRT))).body.member.key).toBe(SHIRT);
    // The same key sent with its own "%25" unencoded names another member: none.
    const once = `/trackers/${setId}/members/${encodeURIComponent(SHIRT).replace("%2525", "%25")}`;
    expect((await get(once)).status).toBe(404);
    // An unencoded "/" splits the key into segments: no such route.
    const raw = await get(`/trackers/${setId}/members/sku/100`);
    expect(raw.status).toBe(404);
    const bad = await get(`/trackers/${setId}/members/%E0%A4%A`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe("The path parameter key is not valid percent-encoding.");
  });

  it("is a 404 for an unknown key, another person's tracker and a tracker that watches no set (which it names)", async () => {
    const unknown = await get(memberPath("https://shop.example/catalog/nothing"));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "NOT_FOUND", message: "This set has no member with that key." });
    const theirs = await get(memberPath(MUG), otherToken);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.message).toBe("Tracker not found.");
    const single = await get(memberPath(MUG, singleId));
    expect(single.status).toBe(404);
    expect(single.body.error).toEqual({
      code: "NOT_FOUND",
      message: "This tracker does not watch a set, so it has no members.",
      details: { watchesSet: false },
    });
  });
});

describe("GET /api/v1/trackers/{id}/members/{key}/changes", () => {
  it("pages the member's own entries newest first with nextCursor", async () => {
    const whole = await get(`${memberPath(MUG)}/changes`);
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({ trackerId: setId, key: MUG, nextCursor: null });
    const titles = whole.body.entries.map(
      (e: { fields: { field: string; before: unknown; after: unknown }[] }) =>
        e.fields.find((f) => f.field === "title") ?? null,
    );
    expect(titles).toEqual([
      expect.objectContaining({ before: "Blue mug, edition 2", after: "Blue mug, edition 3", verdict: "material" }),
      expect.objectContaining({ before: "Blue mug, edition 1", after: "Blue mug, edition 2", verdict: "material" }),
    ]);
    expect(whole.body.entries.map((e: { kind: string }) => e.kind)).toEqual(["changed", "changed"]);

    const first = await get(`${memberPath(MUG)}/changes?limit=1`);
    expect(first.body.entries).toHaveLength(1);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await get(`${memberPath(MUG)}/changes?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.entries).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
    expect([first.body.entries[0].id, second.body.entries[0].id]).toEqual(
      whole.body.entries.map((e: { id: string }) => e.id),
    );

    const cafe = await get(`${memberPath(CAFE)}/changes`);
    expect(cafe.body.entries.map((e: { kind: string }) => e.kind)).toEqual(["gone"]);
    // The baseline's members have no entries of their own.
    expect((await get(`${memberPath(PLAIN)}/changes`)).body.entries).toEqual([]);

    expect((await get(`${memberPath(MUG)}/changes?limit=101`)).status).toBe(400);
    expect((await get(`${memberPath(MUG)}/changes?cursor=nope`)).status).toBe(400);
  });

  it("is a 404 for another person's tracker and for a tracker that watches no set", async () => {
    expect((await get(`${memberPath(MUG)}/changes`, otherToken)).status).toBe(404);
    const single = await get(`${memberPath(MUG, singleId)}/changes`);
    expect(single.status).toBe(404);
    expect(single.body.error.details).toEqual({ watchesSet: false });
    expect((await get(`/trackers/${setId}/members`, otherToken)).status).toBe(404);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteContextFile, listContextFiles, saveContextFile } from "@/server/context";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { queryTimeline } from "@/server/timeline";
import { getTrackerOverview, lockDefinition, replayTracker, saveDraftDefinition } from "@/server/trackers";
import { countSql } from "../bench/sql-counter";
import { boundValueDefinition, rivalPage } from "../fixtures/context-example";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { utf8 } from "../helpers/context-fixtures";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * A value bound from a context file never vanishes silently (docs/context-files.md): before a file a locked rule
 * reads goes, the file list names the rule; afterwards the rule decides with the value it read last, marked on the
 * definition, until the tracker is edited; and replaying the locked definition reproduces what was recorded. Rules
 * mode and code rules only: no model anywhere.
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  userId = (await t.db.user.create({ data: { name: "Ana", email: "ana@example.test" } })).id;
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

const opts = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
});

const RULE = "price: material when it drops below our_price (“our price” in price-list.txt)";

async function trackerAt(path: string) {
  const { tracker } = await createActiveTracker(t.db, {
    userId,
    capability: "web.scrape",
    capabilityInput: { url: `${site.url}${path}` },
    definition: boundValueDefinition({ label: "our price", file: "price-list.txt" }),
    decision: "Are we being undercut?",
  });
  return tracker.id;
}

const attach = (trackerId: string, text: string, replaceFileId?: string) =>
  saveContextFile(t.db, {
    userId,
    trackerId,
    name: "price-list.txt",
    mediaType: "text/plain",
    bytes: utf8(text),
    ...(replaceFileId ? { replaceFileId } : {}),
  });

/** Puts the rival's price on the page and refreshes. */
async function priceIs(trackerId: string, path: string, price: string) {
  site.setPage(path, { body: rivalPage(price) });
  const result = await refreshTracker(t.db, trackerId, opts());
  expect(result.status).toBe("completed");
  return result;
}

const latestReason = async (trackerId: string) =>
  (await queryTimeline(t.db, { trackerId })).items[0]?.decisions.price?.reason;

const keptOnPage = async (trackerId: string) =>
  (await getTrackerOverview(t.db, { userId, trackerId })).definition?.fields.find((f) => f.name === "price")?.kept;

async function replayLocked(trackerId: string) {
  const result = await replayTracker(
    t.db,
    { userId, trackerId, definition: "locked", modelBudget: 0, planOnly: false },
    {},
    { models: { filler: null, judge: null } },
  );
  const strip = (e: (typeof result.recorded)[number]) => ({
    runId: e.runId,
    materiality: e.materiality,
    delta: e.delta,
    decisions: e.decisions,
  });
  return { result, recorded: result.recorded.map(strip), replayed: result.replayed.map(strip) };
}

describe("deleting a file a locked rule reads", () => {
  it("names the rule first; afterwards the same crossing is decided the same way with the kept value, marked; replay reproduces it", async () => {
    const trackerId = await trackerAt("/kept-delete");
    const { file } = await attach(trackerId, "Price list\nour price is 45.00\n");
    expect((await priceIs(trackerId, "/kept-delete", "50.00")).outcome).toBe("baseline");
    expect(await priceIs(trackerId, "/kept-delete", "44.00")).toMatchObject({ outcome: "material", modelCalls: 0 });
    const before = await latestReason(trackerId);
    expect(before).toMatch(
      /^price: \$50\.00 → \$44\.00 dropped below our_price \$45\.00 \(price-list\.txt, .+\) → material$/,
    );
    expect((await priceIs(trackerId, "/kept-delete", "50.00")).outcome).toBe("noise");

    // Before it goes: the list (what the delete confirmation reads) names the rule and the value.
    const listed = await listContextFiles(t.db, { userId, trackerId });
    expect(listed.files.map((f) => f.usedBy)).toEqual([[{ name: "our_price", value: 45, rules: [RULE] }]]);
    expect(await keptOnPage(trackerId)).toBeUndefined();

    const removedAt = new Date("2026-12-06T10:30:00.000Z");
    await deleteContextFile(t.db, { userId, trackerId, fileId: file.id, now: removedAt });
    expect((await listContextFiles(t.db, { userId, trackerId })).files).toEqual([]);
    expect(await keptOnPage(trackerId)).toEqual([
      { name: "our_price", value: "$45.00", fileName: "price-list.txt", reason: "removed", since: removedAt },
    ]);

    // The same kind of crossing again: material by code, with the kept value, and the reason says so.
    expect(await priceIs(trackerId, "/kept-delete", "44.00")).toMatchObject({ outcome: "material", modelCalls: 0 });
    const after = await latestReason(trackerId);
    expect(after).toBe(before?.replace(/\) → material$/, "; kept: file removed 2026-12-06) → material"));
    // A move that does not cross it is still noise (the rule did not just turn everything material).
    expect((await priceIs(trackerId, "/kept-delete", "46.00")).outcome).toBe("noise");

    // Replaying the locked definition reproduces the timeline, both crossings included, though the file is gone.
    const replay = await replayLocked(trackerId);
    expect(replay.recorded.filter((e) => e.materiality === "material")).toHaveLength(2);
    expect(replay.replayed).toEqual(replay.recorded);
    expect(replay.result).toMatchObject({ added: [], removed: [], changed: [] });
  });

  it("keeps the value the file stated even when no refresh had compared with it yet", async () => {
    const trackerId = await trackerAt("/kept-unread");
    const { file } = await attach(trackerId, "our price is 45.00");
    expect((await priceIs(trackerId, "/kept-unread", "50.00")).outcome).toBe("baseline");
    await deleteContextFile(t.db, { userId, trackerId, fileId: file.id });
    expect(await priceIs(trackerId, "/kept-unread", "44.00")).toMatchObject({ outcome: "material", modelCalls: 0 });
    expect(await latestReason(trackerId)).toMatch(
      /our_price \$45\.00 \(price-list\.txt, .+; kept: file removed \d{4}-\d\d-\d\d\)/,
    );
  });

  it("a replacement that no longer states the value keeps it even when no refresh had compared with it yet", async () => {
    const trackerId = await trackerAt("/kept-replace-unread");
    const { file } = await attach(trackerId, "our price is 45.00");
    expect((await priceIs(trackerId, "/kept-replace-unread", "50.00")).outcome).toBe("baseline");
    const replaced = await attach(trackerId, "Price list: to be announced", file.id);
    expect(await keptOnPage(trackerId)).toEqual([
      {
        name: "our_price",
        value: "$45.00",
        fileName: "price-list.txt",
        reason: "replaced",
        since: replaced.file.updatedAt,
      },
    ]);
    expect(await priceIs(trackerId, "/kept-replace-unread", "44.00")).toMatchObject({
      outcome: "material",
      modelCalls: 0,
    });
    expect(await latestReason(trackerId)).toContain("; kept: no longer in the file since it was replaced ");
  });

  it("a new definition version reads its files afresh: no fallback to the old version's value", async () => {
    const trackerId = await trackerAt("/kept-edited");
    const { file } = await attach(trackerId, "our price is 45.00");
    await priceIs(trackerId, "/kept-edited", "50.00");
    await deleteContextFile(t.db, { userId, trackerId, fileId: file.id });
    expect(await keptOnPage(trackerId)).toHaveLength(1);

    await saveDraftDefinition(t.db, {
      userId,
      trackerId,
      definition: boundValueDefinition({ label: "our price", file: "price-list.txt" }),
    });
    await lockDefinition(t.db, { userId, trackerId });
    expect(await keptOnPage(trackerId)).toBeUndefined();
    await priceIs(trackerId, "/kept-edited", "50.00"); // the new version's baseline
    expect((await priceIs(trackerId, "/kept-edited", "44.00")).outcome).toBe("noise");
  });

  it("another person cannot delete the file, and nothing is kept for them", async () => {
    const trackerId = await trackerAt("/kept-owner");
    const { file } = await attach(trackerId, "our price is 45.00");
    const other = (await t.db.user.create({ data: { name: "Bo", email: "bo@example.test" } })).id;
    await expect(deleteContextFile(t.db, { userId: other, trackerId, fileId: file.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    expect(await t.db.boundContextValue.count({ where: { trackerId } })).toBe(0);
    expect((await listContextFiles(t.db, { userId, trackerId })).files).toHaveLength(1);
  });
});

describe("replacing a file a locked rule reads", () => {
  it("by one that no longer states the value: kept and marked; a file that states one again wins", async () => {
    const trackerId = await trackerAt("/kept-replace");
    const { file } = await attach(trackerId, "our price is 45.00");
    await priceIs(trackerId, "/kept-replace", "50.00");
    expect((await priceIs(trackerId, "/kept-replace", "44.00")).outcome).toBe("material");
    await priceIs(trackerId, "/kept-replace", "50.00");

    const replaced = await attach(trackerId, "Price list: to be announced", file.id);
    expect(await keptOnPage(trackerId)).toEqual([
      {
        name: "our_price",
        value: "$45.00",
        fileName: "price-list.txt",
        reason: "replaced",
        since: replaced.file.updatedAt,
      },
    ]);
    expect(await priceIs(trackerId, "/kept-replace", "44.00")).toMatchObject({ outcome: "material", modelCalls: 0 });
    expect(await latestReason(trackerId)).toContain("; kept: no longer in the file since it was replaced ");

    await attach(trackerId, "our price is 40.00", file.id);
    expect(await keptOnPage(trackerId)).toBeUndefined();
    await priceIs(trackerId, "/kept-replace", "50.00");
    expect((await priceIs(trackerId, "/kept-replace", "44.00")).outcome).toBe("noise"); // 44 is not below 40
    expect((await priceIs(trackerId, "/kept-replace", "39.00")).outcome).toBe("material");

    const replay = await replayLocked(trackerId);
    expect(replay.replayed).toEqual(replay.recorded);
  });

  it("replay judges each capture with the value its refresh compared with, not the file's value now", async () => {
    const trackerId = await trackerAt("/kept-values-over-time");
    const { file } = await attach(trackerId, "our price is 45.00");
    await priceIs(trackerId, "/kept-values-over-time", "50.00");
    expect((await priceIs(trackerId, "/kept-values-over-time", "44.00")).outcome).toBe("material"); // below 45
    await priceIs(trackerId, "/kept-values-over-time", "50.00");
    await attach(trackerId, "our price is 30.00", file.id);
    expect((await priceIs(trackerId, "/kept-values-over-time", "44.00")).outcome).toBe("noise"); // not below 30
    await priceIs(trackerId, "/kept-values-over-time", "50.00");
    expect((await priceIs(trackerId, "/kept-values-over-time", "29.00")).outcome).toBe("material"); // below 30

    const replay = await replayLocked(trackerId);
    expect(replay.recorded.filter((e) => e.materiality === "material")).toHaveLength(2);
    expect(replay.replayed).toEqual(replay.recorded);
  });
});

describe("the hot loop's floor with a bound value", () => {
  it("an unchanged page: still one read and one write; a changed one adds only the files' read", async () => {
    const trackerId = await trackerAt("/kept-floor");
    await attach(trackerId, "our price is 45.00");
    await priceIs(trackerId, "/kept-floor", "50.00");
    const counted = async (price: string) => {
      const counter = countSql(t.pglite);
      try {
        const result = await priceIs(trackerId, "/kept-floor", price);
        return { outcome: result.outcome, statements: counter.statements, transactions: counter.transactions };
      } finally {
        counter.restore();
      }
    };
    expect(await counted("50.00")).toEqual({ outcome: "unchanged", statements: 2, transactions: 0 });
    // Lease read, the files' read (the files, then their chunks), then ONE final write, which keeps the value read.
    expect(await counted("44.00")).toEqual({ outcome: "material", statements: 4, transactions: 0 });
    expect(await t.db.boundContextValue.findMany({ where: { trackerId } })).toEqual([
      expect.objectContaining({ name: "our_price", value: 45, fileName: "price-list.txt", removedAt: null }),
    ]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TDb } from "@/server/db";
import { AppError } from "@/server/errors";
import {
  appendChange,
  encodeTimelineCursor,
  ensureEntity,
  getCurrentState,
  queryTimeline,
  stampChecked,
  type TChangeMateriality,
  writeCurrentState,
} from "@/server/timeline";
import { createTestDb, type TTestDb } from "../helpers/db";

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

let trackerSeq = 0;
async function seedTracker(db: TDb): Promise<{ trackerId: string; entityId: string }> {
  await db.user.createMany({ data: [{ id: "u1", name: "U" }], skipDuplicates: true });
  const tracker = await db.tracker.create({
    data: {
      userId: "u1",
      decision: `tracker ${++trackerSeq}`,
      capability: "web.scrape",
      capabilityInput: { url: "https://example.com" },
      status: "active",
      lockedVersion: 1,
    },
  });
  const entity = await ensureEntity(db, { trackerId: tracker.id, entityKey: "https://example.com/" });
  return { trackerId: tracker.id, entityId: entity.id };
}

async function newRun(db: TDb, trackerId: string): Promise<string> {
  return (await db.refreshRun.create({ data: { trackerId, trigger: "manual" } })).id;
}

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

describe("timeline (PGlite)", () => {
  let t: TTestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(() => t.close());

  it("ensureEntity returns one entity per (tracker, key), also concurrently and inside a transaction", async () => {
    const { trackerId, entityId } = await seedTracker(t.db);
    const again = await Promise.all(
      Array.from({ length: 8 }, () => ensureEntity(t.db, { trackerId, entityKey: "https://example.com/" })),
    );
    expect(new Set(again.map((e) => e.id))).toEqual(new Set([entityId]));
    const inTx = await t.db.$transaction((tx) => ensureEntity(tx, { trackerId, entityKey: "https://example.com/" }));
    expect(inTx.id).toBe(entityId);
    const other = await ensureEntity(t.db, { trackerId, entityKey: "https://example.com/other" });
    expect(other.id).not.toBe(entityId);
    expect(await t.db.trackedEntity.count({ where: { trackerId } })).toBe(2);
    expect((await rejection(ensureEntity(t.db, { trackerId: "missing", entityKey: "k" }))).code).toBe("NOT_FOUND");
    expect((await rejection(ensureEntity(t.db, { trackerId, entityKey: "  " }))).code).toBe("BAD_REQUEST");
  });

  it("writeCurrentState replaces the record; stampChecked only moves the hash and lastCheckedAt", async () => {
    const { entityId } = await seedTracker(t.db);
    expect(await getCurrentState(t.db, entityId)).toBeNull();
    expect(await stampChecked(t.db, { entityId, contentHash: "h0", checkedAt: at(0) })).toBe(false);
    expect(await getCurrentState(t.db, entityId)).toBeNull();

    const baseline = { rating: 4.4, review_count: 312, price: { amount: 12, currency: "EUR" }, notable_signals: [] };
    await writeCurrentState(t.db, {
      entityId,
      fields: baseline,
      contentHash: "h1",
      definitionVersion: 1,
      checkedAt: at(1),
    });
    expect(await getCurrentState(t.db, entityId)).toEqual({
      entityId,
      fields: baseline,
      observed: baseline, // not given: what the source said is the record itself
      contentHash: "h1",
      definitionVersion: 1,
      lastCheckedAt: at(1),
      updatedAt: at(1),
    });

    // Noise: the baseline record stays, only the hash and the check time move.
    expect(await stampChecked(t.db, { entityId, contentHash: "h2", checkedAt: at(2) })).toBe(true);
    expect(await getCurrentState(t.db, entityId)).toEqual({
      entityId,
      fields: baseline,
      observed: baseline,
      contentHash: "h2",
      definitionVersion: 1,
      lastCheckedAt: at(2),
      updatedAt: at(1),
    });

    // Material, inside a transaction with the append: everything is replaced.
    const next = { rating: 4.3, review_count: 470, price: { amount: 12, currency: "EUR" }, notable_signals: [] };
    const observed = { ...next, rating: 4.35 };
    await t.db.$transaction((tx) =>
      writeCurrentState(tx, {
        entityId,
        fields: next,
        observed,
        contentHash: "h3",
        definitionVersion: 2,
        checkedAt: at(3),
      }),
    );
    expect(await getCurrentState(t.db, entityId)).toEqual({
      entityId,
      fields: next,
      observed,
      contentHash: "h3",
      definitionVersion: 2,
      lastCheckedAt: at(3),
      updatedAt: at(3),
    });
    expect(await t.db.entityCurrentState.count({ where: { entityId } })).toBe(1);

    // A rolled-back transaction leaves the state as it was.
    await expect(
      t.db.$transaction(async (tx) => {
        await writeCurrentState(tx, {
          entityId,
          fields: {},
          contentHash: "hx",
          definitionVersion: 2,
          checkedAt: at(4),
        });
        throw new Error("crash before append");
      }),
    ).rejects.toThrow("crash before append");
    expect((await getCurrentState(t.db, entityId))?.contentHash).toBe("h3");
  });

  it("appendChange twice with the same run writes one row and returns it both times", async () => {
    const { trackerId, entityId } = await seedTracker(t.db);
    const runId = await newRun(t.db, trackerId);
    const change = {
      entityId,
      trackerId,
      runId,
      capturedAt: at(10),
      delta: { review_count: { from: 312, to: 470 }, rating: { from: 4.4, to: 4.3 } },
      materiality: "material" as const,
      decisions: {
        review_count: {
          verdict: "material" as const,
          decidedBy: "code" as const,
          reason: "+158 reviews (≥ 10)",
          rule: { kind: "numeric", absolute: 10 },
        },
        rating: { verdict: "noise" as const, decidedBy: "code" as const, reason: "−0.1 stars (< 0.2)" },
      },
      definitionVersion: 1,
    };
    const first = await appendChange(t.db, change);
    const second = await t.db.$transaction((tx) =>
      appendChange(tx, { ...change, capturedAt: at(11), materiality: "notable", delta: {} }),
    );
    expect(second).toEqual(first);
    expect(await t.db.entityChange.count({ where: { runId } })).toBe(1);
    expect(first).toMatchObject({ materiality: "material", definitionVersion: 1, capturedAt: at(10) });

    const page = await queryTimeline(t.db, { trackerId });
    expect(page.items).toEqual([
      {
        id: first.id,
        trackerId,
        entityId,
        runId,
        capturedAt: at(10),
        materiality: "material",
        delta: change.delta,
        decisions: change.decisions,
        definitionVersion: 1,
        citations: [],
      },
    ]);

    // Malformed input never reaches the table.
    const bad = await rejection(
      appendChange(t.db, { ...change, runId: await newRun(t.db, trackerId), materiality: "noise" as "material" }),
    );
    expect(bad.code).toBe("BAD_REQUEST");
    expect(bad.message).toMatch(/materiality/);
    expect(await t.db.entityChange.count({ where: { trackerId } })).toBe(1);
  });

  it("queryTimeline pages by (capturedAt, id) with from/to, materiality filters and a stable cursor", async () => {
    const { trackerId, entityId } = await seedTracker(t.db);
    const other = await seedTracker(t.db); // another tracker's rows must never leak in
    const kinds: TChangeMateriality[] = ["baseline", "material", "notable", "material", "notable"];
    // 25 rows at minutes 0..24, with pairs sharing a capturedAt to exercise the id tie-break.
    const written: Array<{ id: string; minute: number; materiality: TChangeMateriality }> = [];
    for (let i = 0; i < 25; i++) {
      const minute = Math.floor(i / 2) * 2;
      const materiality = kinds[i % kinds.length] ?? "material";
      const row = await appendChange(t.db, {
        entityId,
        trackerId,
        runId: await newRun(t.db, trackerId),
        capturedAt: at(minute),
        delta: { price: { from: i, to: i + 1 } },
        materiality,
        decisions: { price: { verdict: "material", decidedBy: "code", reason: `step ${i}` } },
        definitionVersion: 1,
      });
      written.push({ id: row.id, minute, materiality });
      await appendChange(t.db, {
        entityId: other.entityId,
        trackerId: other.trackerId,
        runId: await newRun(t.db, other.trackerId),
        capturedAt: at(minute),
        delta: {},
        materiality: "notable",
        decisions: {},
        definitionVersion: 1,
      });
    }
    const sortKey = (r: { minute: number; id: string }) => `${String(r.minute).padStart(4, "0")}|${r.id}`;
    const ascending = [...written].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));

    async function collect(query: Omit<Parameters<typeof queryTimeline>[1], "trackerId" | "cursor">) {
      const ids: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      for (let guard = 0; guard < 50; guard++) {
        const page = await queryTimeline(t.db, { trackerId, ...query, cursor });
        ids.push(...page.items.map((i) => i.id));
        sizes.push(page.items.length);
        if (!page.nextCursor) return { ids, sizes };
        cursor = page.nextCursor;
      }
      throw new Error("pagination did not terminate");
    }

    // Default: newest first, everything, one page.
    const all = await queryTimeline(t.db, { trackerId });
    expect(all.items.map((i) => i.id)).toEqual(ascending.map((r) => r.id).reverse());
    expect(all.nextCursor).toBeNull();

    // Pages of 4, both directions: the concatenation is the full ordered list, no gaps, no repeats.
    const desc = await collect({ limit: 4 });
    expect(desc.ids).toEqual(ascending.map((r) => r.id).reverse());
    expect(desc.sizes).toEqual([4, 4, 4, 4, 4, 4, 1]);
    const asc = await collect({ limit: 4, order: "asc" });
    expect(asc.ids).toEqual(ascending.map((r) => r.id));
    // An exact multiple: the last full page has no next cursor.
    expect((await collect({ limit: 5 })).sizes).toEqual([5, 5, 5, 5, 5]);

    // from inclusive, to exclusive.
    const window = await collect({ from: at(4), to: at(10), limit: 2, order: "asc" });
    expect(window.ids).toEqual(ascending.filter((r) => r.minute >= 4 && r.minute < 10).map((r) => r.id));
    expect(window.ids).toHaveLength(6);

    const materialOnly = await collect({ materiality: ["material"], limit: 3 });
    expect(materialOnly.ids).toEqual(
      ascending
        .filter((r) => r.materiality === "material")
        .map((r) => r.id)
        .reverse(),
    );
    expect((await queryTimeline(t.db, { trackerId, materiality: [] })).items).toEqual([]);

    // Stable under inserts: a row appended after page 1 (newer) does not shift page 2.
    const page1 = await queryTimeline(t.db, { trackerId, limit: 5 });
    await appendChange(t.db, {
      entityId,
      trackerId,
      runId: await newRun(t.db, trackerId),
      capturedAt: at(100),
      delta: {},
      materiality: "notable",
      decisions: {},
      definitionVersion: 1,
    });
    const page2 = await queryTimeline(t.db, { trackerId, limit: 5, cursor: page1.nextCursor ?? undefined });
    expect(page2.items.map((i) => i.id)).toEqual(
      ascending
        .map((r) => r.id)
        .reverse()
        .slice(5, 10),
    );

    // Limits: above the maximum is clamped; zero or fractional is refused.
    expect((await queryTimeline(t.db, { trackerId, limit: 10_000 })).items).toHaveLength(26);
    expect((await rejection(queryTimeline(t.db, { trackerId, limit: 0 }))).code).toBe("BAD_REQUEST");
    expect((await rejection(queryTimeline(t.db, { trackerId, limit: 2.5 }))).code).toBe("BAD_REQUEST");
    expect((await rejection(queryTimeline(t.db, { trackerId, from: at(5), to: at(1) }))).code).toBe("BAD_REQUEST");
    expect((await rejection(queryTimeline(t.db, { trackerId, from: new Date(Number.NaN) }))).code).toBe("BAD_REQUEST");
  });

  it("a malformed cursor is a BAD_REQUEST, never a query", async () => {
    const { trackerId } = await seedTracker(t.db);
    const valid = encodeTimelineCursor({ capturedAt: at(1), id: "cabc123" });
    expect((await queryTimeline(t.db, { trackerId, cursor: valid })).items).toEqual([]);
    const b64 = (s: string) => Buffer.from(s).toString("base64url");
    const bad = [
      "",
      "not a cursor!",
      `${valid}=`,
      b64("no-separator"),
      b64("2026-13-45T00:00:00.000Z|cabc"),
      b64("2026-01-01T00:00:00Z|cabc"),
      b64("2026-01-01T00:00:00.000Z|"),
      b64("2026-01-01T00:00:00.000Z|x' OR 1=1 --"),
      b64(JSON.stringify({ capturedAt: "2026-01-01T00:00:00.000Z", id: "c1" })),
    ];
    for (const cursor of bad) {
      const error = await rejection(queryTimeline(t.db, { trackerId, cursor }));
      expect([cursor, error.code]).toEqual([cursor, "BAD_REQUEST"]);
      expect(error.message).toMatch(/cursor is not valid/);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDb, type TDb, type TDbHandle } from "@/server/db";
import { AppError } from "@/server/errors";
import type { TTrackerDefinition } from "@/server/intelligence/definition";
import { appendChange, ensureEntity } from "@/server/timeline";
import { createTracker, getTracker, lockDefinition, saveDraftDefinition } from "@/server/trackers";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb, withAdminClient } from "../helpers/db";

const definition = {
  fields: [{ name: "price", type: "money", description: "Tasting menu price", currency: "EUR" }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
} satisfies TTrackerDefinition;

async function draftTracker(db: TDb) {
  await db.user.createMany({ data: [{ id: "alice", name: "Alice" }], skipDuplicates: true });
  const tracker = await createTracker(db, {
    userId: "alice",
    decision: "Do we still undercut them?",
    capability: "web.scrape",
    capabilityInput: { url: "https://example.com/menu" },
  });
  const draft = await saveDraftDefinition(db, { userId: "alice", trackerId: tracker.id, definition });
  return { tracker, draft };
}

describe.skipIf(!hasPostgres)("trackers and timeline on PostgreSQL", () => {
  let t: TPostgresTestDb;
  const others: TDbHandle[] = [];
  beforeAll(async () => {
    t = await createPostgresTestDb();
    for (let i = 0; i < 4; i++) others.push(await createPostgresDb(t.url));
  });
  afterAll(async () => {
    for (const o of others) await o.close();
    await t?.drop();
  });
  const client = (i: number): TDb => (i === 0 ? t.db : (others[(i - 1) % others.length]?.db ?? t.db));

  it("a lock that loses the race to a concurrent lock gets CONFLICT (conditional update)", async () => {
    const { tracker, draft } = await draftTracker(t.db);
    await withAdminClient(t.url, async (rival) => {
      await rival.query("BEGIN");
      await rival.query(
        `UPDATE "TrackerDefinition" SET "lockedAt" = '2026-01-01T00:00:00Z' WHERE "id" = $1 AND "lockedAt" IS NULL`,
        [draft.id],
      );
      // Ours reads the (still unlocked) draft, then blocks on the rival's row lock.
      const ours = lockDefinition(t.db, { userId: "alice", trackerId: tracker.id }).then(
        () => undefined,
        (e: unknown) => e,
      );
      await waitForLockWaiter(rival, t.database);
      await rival.query("COMMIT");
      const error = await ours;
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("CONFLICT");
    });
    const row = await t.db.trackerDefinition.findUniqueOrThrow({ where: { id: draft.id } });
    expect(row.lockedAt?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    // The loser's transaction rolled back whole: the tracker was not touched by it.
    expect(await getTracker(t.db, { userId: "alice", trackerId: tracker.id })).toMatchObject({
      status: "draft",
      lockedVersion: null,
    });
  });

  it("of 12 concurrent locks over several connections exactly one wins", async () => {
    const { tracker, draft } = await draftTracker(t.db);
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => lockDefinition(client(i), { userId: "alice", trackerId: tracker.id })),
    );
    const winners = results.filter((r) => r.status === "fulfilled");
    expect(winners).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") {
        expect(r.reason).toBeInstanceOf(AppError);
        // Truly concurrent losers get CONFLICT; one that starts after the winner committed finds nothing to lock.
        expect(["CONFLICT", "PRECONDITION_FAILED"]).toContain((r.reason as AppError).code);
      }
    }
    const won = winners[0]?.status === "fulfilled" ? winners[0].value : undefined;
    const row = await t.db.trackerDefinition.findUniqueOrThrow({ where: { id: draft.id } });
    expect(row.lockedAt).toEqual(won?.definition.lockedAt);
    expect(await getTracker(t.db, { userId: "alice", trackerId: tracker.id })).toMatchObject({
      status: "active",
      lockedVersion: 1,
    });
    expect(await t.db.trackerDefinition.count({ where: { trackerId: tracker.id } })).toBe(1);
  });

  it("the immutability trigger works on PostgreSQL: update and delete refused, tracker cascade allowed", async () => {
    const { tracker, draft } = await draftTracker(t.db);
    await lockDefinition(t.db, { userId: "alice", trackerId: tracker.id });
    await withAdminClient(t.url, async (raw) => {
      await expect(
        raw.query(`UPDATE "TrackerDefinition" SET "definition" = '{}'::jsonb WHERE "id" = $1`, [draft.id]),
      ).rejects.toMatchObject({ code: "23001", message: expect.stringMatching(/is locked and cannot be changed/) });
      await expect(raw.query(`DELETE FROM "TrackerDefinition" WHERE "id" = $1`, [draft.id])).rejects.toMatchObject({
        code: "23001",
      });
      // The migration targets PostgreSQL 15+; say which server this ran on if it fails.
      const { rows } = await raw.query<{ v: number }>("SELECT current_setting('server_version_num')::int AS v");
      expect(rows[0]?.v ?? 0).toBeGreaterThanOrEqual(150000);
    });
    // Saving a new draft after the lock adds version 2 and leaves version 1 alone.
    const v2 = await saveDraftDefinition(t.db, { userId: "alice", trackerId: tracker.id, definition });
    expect(v2.version).toBe(2);
    await t.db.user.delete({ where: { id: "alice" } }); // user → tracker → definitions cascade
    expect(await t.db.trackerDefinition.count({ where: { trackerId: tracker.id } })).toBe(0);
  });

  it("ensureEntity and appendChange are race-safe across connections", async () => {
    const { tracker } = await draftTracker(t.db);
    const entities = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client(i).$transaction((tx) => ensureEntity(tx, { trackerId: tracker.id, entityKey: "https://example.com/" })),
      ),
    );
    expect(new Set(entities.map((e) => e.id)).size).toBe(1);
    const entityId = entities[0]?.id ?? "";
    const run = await t.db.refreshRun.create({ data: { trackerId: tracker.id, trigger: "cron" } });
    const changes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client(i).$transaction((tx) =>
          appendChange(tx, {
            entityId,
            trackerId: tracker.id,
            runId: run.id,
            capturedAt: new Date(),
            delta: { price: { from: null, to: { amount: 12, currency: "EUR" } } },
            materiality: "baseline",
            decisions: {},
            definitionVersion: 1,
          }),
        ),
      ),
    );
    expect(new Set(changes.map((c) => c.id)).size).toBe(1);
    expect(await t.db.entityChange.count({ where: { runId: run.id } })).toBe(1);
  });
});

async function waitForLockWaiter(
  admin: { query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }> },
  database: string,
) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await admin.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      [database],
    );
    if (rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("the lock under test never waited on the rival's row lock");
}

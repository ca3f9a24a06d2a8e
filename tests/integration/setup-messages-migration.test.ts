import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, pgliteRunner, readMigrations } from "@/server/db";
import { getSetupState, listOpenSetupSessions } from "@/server/intelligence/setup";
import { createTestDb, type TTestDb } from "../helpers/db";

/**
 * The migration that moves setup transcripts from SetupSession.messages (a JSON array) to SetupMessage
 * rows carries every stored message over, in order. The database is first rewound to the schema before
 * that migration (its table dropped, the column back, its record removed), then migrated for real.
 */

const MIGRATION = readMigrations().find((m) => m.name.endsWith("_setup_messages"));
let t: TTestDb;

beforeAll(async () => {
  t = await createTestDb();
});
afterAll(() => t?.close());

const noId = { role: "user", parts: [{ type: "text", text: "no id here" }] };
const legacy = {
  first: [
    { id: "u1", role: "user", parts: [{ type: "text", text: "Watch https://acme.example/pricing" }] },
    {
      id: "a1",
      role: "assistant",
      parts: [{ type: "text", text: "I could not read it." }],
      metadata: { kind: "error" },
    },
    { id: "u2", role: "user", parts: [{ type: "text", text: "try again" }] },
  ],
  odd: [noId, "not a message"],
};

describe("migration: setup transcripts → SetupMessage rows", () => {
  it("moves every stored message, in order, and drops the column only after", async () => {
    if (!MIGRATION) throw new Error("the setup_messages migration is missing");
    await t.pglite.exec(`
      DROP TABLE "SetupMessage";
      ALTER TABLE "SetupSession" ADD COLUMN "messages" JSONB NOT NULL DEFAULT '[]';
      DELETE FROM "_prisma_migrations" WHERE migration_name = '${MIGRATION.name}';
      INSERT INTO "User" ("id", "name", "updatedAt") VALUES ('u-legacy', 'Legacy', now());
      INSERT INTO "SetupSession" ("id", "userId", "messages", "createdAt", "updatedAt") VALUES
        ('s-first', 'u-legacy', '${JSON.stringify(legacy.first)}', '2026-01-01', '2026-01-02'),
        ('s-empty', 'u-legacy', '[]', '2026-01-03', '2026-01-03'),
        ('s-odd', 'u-legacy', '${JSON.stringify(legacy.odd)}', '2026-01-04', '2026-01-04');
    `);

    const result = await applyMigrations(pgliteRunner(t.pglite));
    expect(result.appliedNow).toEqual([MIGRATION.name]);

    const rows = await t.db.setupMessage.findMany({ orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.sessionId, r.messageId, r.role])).toEqual([
      ["s-first", "u1", "user"],
      ["s-first", "a1", "assistant"],
      ["s-first", "u2", "user"],
      ["s-odd", "legacy-s-odd-1", "user"],
      ["s-odd", "legacy-s-odd-2", "unknown"],
    ]);
    // Carried over unchanged (an id is added only where there was none; a non-message is kept, wrapped).
    expect(rows.slice(0, 3).map((r) => r.message)).toEqual(legacy.first);
    expect(rows[3]?.message).toEqual({ ...noId, id: "legacy-s-odd-1" });
    expect(rows[4]?.message).toEqual({ legacy: "not a message" });
    const column = await t.pglite.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'SetupSession' AND column_name = 'messages'`,
    );
    expect(column.rows).toHaveLength(0);

    // The app reads them back as setup messages; what is not one is skipped (and stays stored).
    const first = await getSetupState(t.db, { userId: "u-legacy", sessionId: "s-first" });
    expect(first.messages.map((m) => m.id)).toEqual(["u1", "a1", "u2"]);
    expect(first.messages[1]?.metadata).toEqual({ kind: "error" });
    const odd = await getSetupState(t.db, { userId: "u-legacy", sessionId: "s-odd" });
    expect(odd.messages.map((m) => m.id)).toEqual(["legacy-s-odd-1"]);
    const titles = await listOpenSetupSessions(t.db, { userId: "u-legacy", limit: 10 });
    expect(titles.map((s) => [s.sessionId, s.title])).toEqual([
      ["s-odd", "No id here"],
      ["s-first", "Watch https://acme.example/pricing"],
    ]);
  });
});

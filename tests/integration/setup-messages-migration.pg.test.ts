import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, pgClientRunner, readMigrations } from "@/server/db";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb, withAdminClient } from "../helpers/db";

/**
 * The setup_messages data migration on a real PostgreSQL (CI: 15; PGlite is 18): migrate up to just
 * before it, store transcripts the old way, apply it, and every message is a row, in order.
 */
describe.skipIf(!hasPostgres)("migration: setup transcripts → SetupMessage rows (PostgreSQL)", () => {
  let pg: TPostgresTestDb;
  beforeAll(async () => {
    pg = await createPostgresTestDb({ migrate: false });
  });
  afterAll(() => pg?.drop());

  it("carries every stored message over, in order", async () => {
    const all = readMigrations();
    const at = all.findIndex((m) => m.name.endsWith("_setup_messages"));
    expect(at).toBeGreaterThan(0);
    const messages = [
      { id: "u1", role: "user", parts: [{ type: "text", text: "Watch it" }] },
      { id: "a1", role: "assistant", parts: [{ type: "text", text: "Done." }], metadata: { kind: "info" } },
      { role: "user", parts: [{ type: "text", text: "no id" }] },
    ];
    await withAdminClient(pg.url, async (client) => {
      const runner = pgClientRunner(client);
      await applyMigrations(runner, all.slice(0, at));
      await client.query(`INSERT INTO "User" ("id", "name", "updatedAt") VALUES ('u-pg', 'PG', now())`);
      await client.query(
        `INSERT INTO "SetupSession" ("id", "userId", "messages", "updatedAt") VALUES ('s-pg', 'u-pg', $1, now()), ('s-none', 'u-pg', '[]', now())`,
        [JSON.stringify(messages)],
      );
      const result = await applyMigrations(runner, all);
      expect(result.appliedNow[0]).toBe(all[at]?.name);
    });
    const rows = await pg.db.setupMessage.findMany({ orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.sessionId, r.messageId, r.role])).toEqual([
      ["s-pg", "u1", "user"],
      ["s-pg", "a1", "assistant"],
      ["s-pg", "legacy-s-pg-3", "user"],
    ]);
    expect(rows.map((r) => r.message)).toEqual([messages[0], messages[1], { ...messages[2], id: "legacy-s-pg-3" }]);
  });
});

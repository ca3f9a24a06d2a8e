import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeDb, createPostgresDb, getDb } from "@/server/db";
import { DEFAULT_SCHEDULER_POLL_MS, resetEnvForTests } from "@/server/env";
import { ensureLocalUser, LOCAL_USER_ID } from "@/server/users/ensure-local-user";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";

describe.skipIf(!hasPostgres)("PostgreSQL via DATABASE_URL", () => {
  const created: TPostgresTestDb[] = [];
  const saved = { ...process.env };
  afterEach(async () => {
    await closeDb();
    process.env = { ...saved };
    resetEnvForTests();
  });
  afterAll(async () => {
    for (const t of created) await t.drop();
  });

  it("refuses an unmigrated database with a clear instruction and no credentials", async () => {
    const t = await createPostgresTestDb({ migrate: false });
    created.push(t);
    const withPassword = t.url.replace("://", "://postgres:hunter2@");
    const error = await createPostgresDb(withPassword, { checkMigrations: true }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain("npm run db:migrate");
    expect(error?.message).toContain(t.database);
    expect(error?.message).not.toContain("hunter2");
  });

  it("does not apply migrations itself, and opens once they are applied", async () => {
    const t = await createPostgresTestDb();
    created.push(t);
    process.env.DATABASE_URL = t.url;
    resetEnvForTests();
    const db = await getDb();
    expect(await db.user.count()).toBe(0); // a fresh install waits for its owner account
  });

  it("reports an unreachable server without the password", async () => {
    const error = await createPostgresDb("postgresql://postgres:hunter2@127.0.0.1:1/nope", {
      checkMigrations: true,
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/Cannot reach the PostgreSQL database at 127\.0\.0\.1:1\/nope/);
    expect(error?.message).not.toContain("hunter2");
  });

  it("ensureLocalUser is race-safe across many connections", async () => {
    const t = await createPostgresTestDb();
    created.push(t);
    const others = await Promise.all(Array.from({ length: 3 }, () => createPostgresDb(t.url)));
    try {
      const clients = [t.db, ...others.map((o) => o.db)];
      const users = await Promise.all(
        Array.from({ length: 40 }, (_, i) => ensureLocalUser(clients[i % clients.length] ?? t.db)),
      );
      expect(new Set(users.map((u) => u.id))).toEqual(new Set([LOCAL_USER_ID]));
      expect(await t.db.user.count()).toBe(1);
      // Inside concurrent transactions too (a caught unique violation would abort a transaction).
      await t.db.user.deleteMany();
      const inTx = await Promise.all(clients.map((c) => c.$transaction((tx) => ensureLocalUser(tx))));
      expect(new Set(inTx.map((u) => u.id))).toEqual(new Set([LOCAL_USER_ID]));
      expect(await t.db.user.count()).toBe(1);
    } finally {
      for (const o of others) await o.close();
    }
  });

  // docs/scale.md "Connection pooling": each idle poll reuses a warm backend instead of opening one.
  it("keeps an idle connection across the scheduler's idle poll: the next poll's statement runs on the same backend", async () => {
    const t = await createPostgresTestDb();
    created.push(t);
    const handle = await createPostgresDb(t.url);
    try {
      const backend = async () =>
        (await handle.db.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]?.pid;
      const first = await backend();
      expect(first).toBeTypeOf("number");
      await new Promise((resolve) => setTimeout(resolve, DEFAULT_SCHEDULER_POLL_MS + 1_000));
      expect(await backend()).toBe(first);
    } finally {
      await handle.close();
    }
  }, 60_000);
});

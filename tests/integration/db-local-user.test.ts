import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureLocalUser, LOCAL_USER_ID } from "@/server/users/ensure-local-user";
import { createTestDb, type TTestDb } from "../helpers/db";

describe("ensureLocalUser (PGlite)", () => {
  let t: TTestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(() => t.close());

  it("creates the local user once and returns the same user afterwards", async () => {
    const first = await ensureLocalUser(t.db);
    expect(first).toMatchObject({ id: LOCAL_USER_ID, isLocal: true, email: null });
    await t.db.user.update({ where: { id: LOCAL_USER_ID }, data: { name: "Renamed" } });
    const second = await ensureLocalUser(t.db);
    expect(second.id).toBe(first.id);
    expect(second.name).toBe("Renamed"); // an existing user is returned, not reset
    expect(await t.db.user.count()).toBe(1);
  });

  it("is safe under concurrent calls and inside a transaction", async () => {
    const users = await Promise.all(Array.from({ length: 10 }, () => ensureLocalUser(t.db)));
    expect(new Set(users.map((u) => u.id))).toEqual(new Set([LOCAL_USER_ID]));
    const inTx = await t.db.$transaction((tx) => ensureLocalUser(tx));
    expect(inTx.id).toBe(LOCAL_USER_ID);
    expect(await t.db.user.count()).toBe(1);
  });
});

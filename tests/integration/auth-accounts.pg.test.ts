import { hashPassword } from "better-auth/crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createInvite, createMemberAccount, createOwnerAccount, setOpenSignUp } from "@/server/auth";
import { createPostgresDb } from "@/server/db";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { authRequest, createTestAuth } from "../helpers/auth";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { runResetPasswordCli } from "../helpers/reset-password-cli";

/** Account creation under real concurrency: several connections to one PostgreSQL, racing. */
describe.skipIf(!hasPostgres)("accounts on PostgreSQL", () => {
  const created: TPostgresTestDb[] = [];
  afterAll(async () => {
    for (const t of created) await t.drop();
  });

  it("concurrent create-owner requests on separate connections make exactly one owner, who adopted the local data", async () => {
    const t = await createPostgresTestDb();
    created.push(t);
    const local = await ensureLocalUser(t.db); // an install from before accounts
    await t.db.tracker.create({
      data: { userId: local.id, decision: "Old", capability: "web.scrape", capabilityInput: {} },
    });
    const others = await Promise.all(Array.from({ length: 5 }, () => createPostgresDb(t.url)));
    try {
      const clients = [t.db, ...others.map((o) => o.db)];
      const passwordHash = await hashPassword("correct horse battery");
      const results = await Promise.allSettled(
        clients.map((db, i) =>
          createOwnerAccount(db, { name: `Owner ${i}`, email: `owner${i}@example.com`, passwordHash }),
        ),
      );
      const won = results.filter((r) => r.status === "fulfilled");
      expect(won).toHaveLength(1);
      for (const r of results) {
        if (r.status === "rejected")
          expect(r.reason).toMatchObject({ code: "CONFLICT", details: { reason: "owner_exists" } });
      }
      const owner = (won[0] as PromiseFulfilledResult<{ id: string }>).value;
      expect(await t.db.user.findMany({ select: { id: true, role: true } })).toEqual([{ id: owner.id, role: "owner" }]);
      expect(await t.db.account.count()).toBe(1);
      expect(await t.db.tracker.findMany({ select: { userId: true } })).toEqual([{ userId: owner.id }]);
    } finally {
      for (const o of others) await o.close();
    }
  });

  it("one invite raced by several connections makes one account", async () => {
    const t = await createPostgresTestDb();
    created.push(t);
    const passwordHash = await hashPassword("correct horse battery");
    const owner = await createOwnerAccount(t.db, { name: "O", email: "o@example.com", passwordHash });
    await setOpenSignUp(t.db, { userId: owner.id, open: false });
    const { token } = await createInvite(t.db, { userId: owner.id });
    const others = await Promise.all(Array.from({ length: 4 }, () => createPostgresDb(t.url)));
    try {
      const results = await Promise.allSettled(
        [t.db, ...others.map((o) => o.db)].map((db, i) =>
          createMemberAccount(db, { name: `M${i}`, email: `m${i}@example.com`, passwordHash, inviteToken: token }),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(await t.db.user.count({ where: { role: "member" } })).toBe(1);
    } finally {
      for (const o of others) await o.close();
    }
  });

  it("the reset-password command works against DATABASE_URL", async () => {
    const t = await createPostgresTestDb();
    created.push(t);
    await createOwnerAccount(t.db, {
      name: "Olive",
      email: "olive@example.com",
      passwordHash: await hashPassword("forgotten passphrase"),
    });
    const run = await runResetPasswordCli(["--email", "olive@example.com"], {
      stdin: "brand new passphrase\n",
      env: { DATABASE_URL: t.url },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const auth = createTestAuth(t.db);
    const signIn = (password: string) =>
      auth.handler(authRequest("/sign-in/email", { email: "olive@example.com", password }));
    expect((await signIn("forgotten passphrase")).status).toBe(401);
    expect((await signIn("brand new passphrase")).status).toBe(200);
  }, 120_000);
});

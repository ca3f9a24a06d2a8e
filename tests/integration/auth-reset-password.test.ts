import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { hashPassword } from "better-auth/crypto";
import { afterAll, expect, it } from "vitest";
import { createOwnerAccount } from "@/server/auth";
import { createPgliteDb } from "@/server/db";
import { embeddedDatabaseDir } from "@/server/db-pglite";
import { authRequest, createTestAuth } from "../helpers/auth";
import { runResetPasswordCli } from "../helpers/reset-password-cli";

/** The command-line reset for a forgotten owner password, against an embedded database in DATA_DIR. */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-reset-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it("sets a new password from stdin, signs the account out everywhere, and refuses bad input changing nothing", async () => {
  const first = await createPgliteDb({ dataDir: embeddedDatabaseDir(dataDir) });
  const owner = await createOwnerAccount(first.db, {
    name: "Olive",
    email: "olive@example.com",
    passwordHash: await hashPassword("forgotten passphrase"),
  });
  await first.db.session.create({
    data: { userId: owner.id, token: "t1", expiresAt: new Date(Date.now() + 86_400_000) },
  });
  await first.db.$disconnect();
  await first.close();

  const env = { DATA_DIR: dataDir, DATABASE_URL: "", PGLITE_STORAGE: "disk" };
  const weak = await runResetPasswordCli(["--email", "olive@example.com"], { stdin: "short\n", env });
  expect(weak.code).toBe(1);
  expect(weak.stderr).toContain("Use at least 10 characters for the password. Nothing changed.");
  const unknown = await runResetPasswordCli(["--email", "nobody@example.com"], {
    stdin: "a long new passphrase\n",
    env,
  });
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("No account has the email nobody@example.com.");

  const done = await runResetPasswordCli(["--email", "Olive@Example.com"], { stdin: "a long new passphrase\n", env });
  expect(done.stderr).toBe("");
  expect(done.code).toBe(0);
  expect(done.stdout).toContain("Password changed for olive@example.com; signed out of 1 session(s).");
  expect(done.stdout).not.toContain("a long new passphrase");

  const reopened = await createPgliteDb({ dataDir: embeddedDatabaseDir(dataDir) });
  try {
    expect(await reopened.db.session.count()).toBe(0);
    const auth = createTestAuth(reopened.db);
    const signIn = (password: string) =>
      auth.handler(authRequest("/sign-in/email", { email: "olive@example.com", password }));
    expect((await signIn("forgotten passphrase")).status).toBe(401);
    expect((await signIn("a long new passphrase")).status).toBe(200);
  } finally {
    await reopened.close();
  }
}, 240_000); // three command runs, each opening the embedded database

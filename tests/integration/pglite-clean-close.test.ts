import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPgliteDb } from "@/server/db";
import { readClusterState } from "../helpers/pg-control";

/**
 * The check the shutdown test relies on (tests/helpers/pg-control.ts) tells a clean close from a
 * process that died with the database open — so it can fail.
 */
const root = path.resolve(import.meta.dirname, "../..");
const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bw-pglite-close-")), "pglite");
afterAll(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

// Opens the database, writes a row, says so, and waits to be killed.
const HOLD_OPEN = `
import { PGlite } from "@electric-sql/pglite";
const db = await PGlite.create({ dataDir: process.argv[1] });
await db.exec("INSERT INTO \\"User\\" (id, name, email, \\"updatedAt\\") VALUES ('killed-user', 'K', 'k@example.com', now())");
process.stdout.write("open\\n");
setInterval(() => {}, 1000);
`;

describe("the embedded database's shutdown state", () => {
  it("is 'shut down' after close()", async () => {
    const handle = await createPgliteDb({ dataDir: dir });
    await handle.close();
    expect(readClusterState(dir)).toBe("shut down");
  });

  it("is 'in production' when the process holding it was killed, and the next open recovers the data", async () => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", HOLD_OPEN, dir], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("open") && resolve());
      child.on("exit", (code) => reject(new Error(`the holder exited early (${code})`)));
    });
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    expect(readClusterState(dir)).toBe("in production");

    const handle = await createPgliteDb({ dataDir: dir });
    try {
      expect(await handle.db.user.findUnique({ where: { id: "killed-user" } })).toMatchObject({ name: "K" });
    } finally {
      await handle.close();
    }
    expect(readClusterState(dir)).toBe("shut down");
  });
});

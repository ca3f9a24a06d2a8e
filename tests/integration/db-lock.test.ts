import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPgliteDb } from "@/server/db";
import { acquireDataDirLock, DataDirLockedError, lockPathFor } from "@/server/db-lock";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "bw-db-lock-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill();
  fs.rmSync(root, { recursive: true, force: true });
});

let n = 0;
const freshDir = () => path.join(root, `db-${++n}`);

function writeLock(dir: string, pid: number): void {
  fs.mkdirSync(path.dirname(lockPathFor(dir)), { recursive: true });
  fs.writeFileSync(lockPathFor(dir), JSON.stringify({ pid, purpose: "test" }));
}

function liveProcess(): number {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  children.push(child);
  if (child.pid === undefined) throw new Error("could not start a helper process");
  return child.pid;
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid;
  await new Promise((resolve) => child.once("exit", resolve));
  if (pid === undefined) throw new Error("could not start a helper process");
  return pid;
}

describe("data directory lock", () => {
  it("writes our pid and removes the lock on release", () => {
    const dir = freshDir();
    const release = acquireDataDirLock(dir);
    expect(JSON.parse(fs.readFileSync(lockPathFor(dir), "utf8")).pid).toBe(process.pid);
    release();
    expect(fs.existsSync(lockPathFor(dir))).toBe(false);
  });

  it("refuses a directory another live process holds, naming the process and DATABASE_URL", () => {
    const dir = freshDir();
    const pid = liveProcess();
    writeLock(dir, pid);
    let caught: unknown;
    try {
      acquireDataDirLock(dir);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DataDirLockedError);
    expect((caught as Error).message).toContain(`is in use by process ${pid}`);
    expect((caught as Error).message).toContain("DATABASE_URL");
    expect(JSON.parse(fs.readFileSync(lockPathFor(dir), "utf8")).pid).toBe(pid); // untouched
  });

  it("refuses a second open in the same process", () => {
    const dir = freshDir();
    const release = acquireDataDirLock(dir);
    try {
      expect(() => acquireDataDirLock(dir)).toThrow(/already open in this process/);
    } finally {
      release();
    }
  });

  it("takes over a stale lock whose process is gone", async () => {
    const dir = freshDir();
    writeLock(dir, await deadPid());
    const release = acquireDataDirLock(dir);
    expect(JSON.parse(fs.readFileSync(lockPathFor(dir), "utf8")).pid).toBe(process.pid);
    release();
  });

  it.skipIf(process.platform !== "linux")(
    "takes over a lock whose holder is a zombie (killed, not yet reaped: containers often have no init)",
    async () => {
      // The child outlives the shell's exec (a child that exited before it would be reaped by the shell itself, as
      // dash does between commands); `sleep 30`, its parent after exec, never reaps it: a zombie from then on.
      const parent = spawn("sh", ["-c", "sleep 1 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] });
      children.push(parent);
      const pid = Number(
        await new Promise<string>((resolve) => parent.stdout?.once("data", (d) => resolve(String(d)))),
      );
      await expect
        .poll(() => fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0], { timeout: 15_000 })
        .toBe("Z");
      const dir = freshDir();
      writeLock(dir, pid);
      const release = acquireDataDirLock(dir);
      expect(JSON.parse(fs.readFileSync(lockPathFor(dir), "utf8")).pid).toBe(process.pid);
      release();
    },
    30_000, // spawning a shell on a busy machine can take seconds
  );

  it("takes over a lock left by an earlier run with our own pid (containers reuse pids)", () => {
    const dir = freshDir();
    writeLock(dir, process.pid);
    const release = acquireDataDirLock(dir);
    release();
  });

  it("takes over a garbage lock file", () => {
    const dir = freshDir();
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(lockPathFor(dir), "not json");
    acquireDataDirLock(dir)();
  });

  it("keeps createPgliteDb from opening a held directory", async () => {
    const dir = freshDir();
    writeLock(dir, liveProcess());
    await expect(createPgliteDb({ dataDir: dir })).rejects.toThrow(DataDirLockedError);
    expect(fs.existsSync(path.join(dir, "PG_VERSION"))).toBe(false); // never opened
  });

  it("is shared with the Prisma CLI shim, across processes, in both directions", async () => {
    const appHeld = freshDir();
    const release = acquireDataDirLock(appHeld);
    try {
      const cli = await runCliLock(appHeld, { hold: false });
      expect(cli.output).toContain(`is in use by process ${process.pid}`);
    } finally {
      release();
    }

    const cliHeld = freshDir();
    const cli = await runCliLock(cliHeld, { hold: true });
    expect(cli.output).toContain("locked");
    expect(() => acquireDataDirLock(cliHeld)).toThrow(`is in use by process ${cli.child.pid}`);
    cli.child.kill("SIGKILL"); // dies without cleaning up: its lock is now stale
    await new Promise((resolve) => cli.child.once("exit", resolve));
    acquireDataDirLock(cliHeld)();
  });
});

const cliLockModule = path.resolve("scripts/prisma/pglite-lock.mjs");

/** Runs the CLI lock in a child process; with `hold` it keeps the lock until killed. */
function runCliLock(dir: string, opts: { hold: boolean }): Promise<{ child: ChildProcess; output: string }> {
  const script = `
    import { lockPgliteDir } from ${JSON.stringify(cliLockModule)};
    try { lockPgliteDir(${JSON.stringify(dir)}, "test"); console.log("locked"); }
    catch (e) { console.log(e.message); process.exit(0); }
    ${opts.hold ? "setInterval(() => {}, 1000);" : ""}`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("\n")) resolve({ child, output });
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", () => resolve({ child, output }));
    child.once("error", reject);
  });
}

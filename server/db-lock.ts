import fs from "node:fs";
import path from "node:path";
import { z } from "zod";

/**
 * Two PGlite instances on one data directory corrupt it (PGlite has no postmaster to refuse the
 * second). `<dataDir>.lock` records the owning pid; a lock whose process is gone is taken over.
 * scripts/prisma/pglite-lock.mjs is the CLI side of the same protocol.
 */

const ZLockFile = z.object({ pid: z.number().int().positive() });

/** Directories this process holds, so a same-pid lock is told apart from a stale one (pid reuse in containers). */
const lockGlobals = globalThis as { __bellwetherHeldLocks?: Set<string> };
lockGlobals.__bellwetherHeldLocks ??= new Set();
const held = lockGlobals.__bellwetherHeldLocks;

export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    readonly lockPath: string,
  ) {
    super(
      pid === process.pid
        ? `The embedded database ${dataDir} is already open in this process; use getDb() instead of opening it twice.`
        : `The embedded database ${dataDir} is in use by process ${pid}${describeProcess(pid)}; stop it or set ` +
            `DATABASE_URL to use PostgreSQL. If no such process uses it, delete ${lockPath}.`,
    );
  }
}

/** ` (its command line)` on Linux, for naming the holder in messages; empty elsewhere or when unreadable. */
function describeProcess(pid: number): string {
  try {
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ").trim();
    if (command === "") return "";
    return ` (${command.length > 100 ? `${command.slice(0, 99)}…` : command})`;
  } catch {
    return "";
  }
}

export function lockPathFor(dataDir: string): string {
  return `${path.resolve(dataDir)}.lock`;
}

function readLockPid(lockPath: string): number | undefined {
  try {
    const parsed = ZLockFile.safeParse(JSON.parse(fs.readFileSync(lockPath, "utf8")));
    return parsed.success ? parsed.data.pid : undefined;
  } catch {
    return undefined; // missing, half-written or garbage: treat as no owner
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by someone else
  }
  // A killed holder whose parent died with it stays a zombie until an init reaps it (containers often have
  // none): it answers signal 0 but holds nothing. Linux says so in /proc; elsewhere, trust the signal.
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

/**
 * Moves the stale lock aside atomically and checks it really was the stale one: a racing process may
 * have replaced it with its own fresh lock in between, which is put back.
 */
function removeStaleLock(lockPath: string, stalePid: number | undefined): void {
  const aside = `${lockPath}.${process.pid}.stale`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (readLockPid(aside) !== stalePid) {
    try {
      fs.linkSync(aside, lockPath); // restore the racer's lock unless yet another one appeared
    } catch {
      // someone else's lock is in place already
    }
  }
  fs.rmSync(aside, { force: true });
}

/**
 * The live process other than this one that holds `dataDir`, if any — for `npm start` to refuse at once,
 * before building. Only a look: the server process still takes the lock atomically when it opens the database.
 */
export function findDataDirLockHolder(dataDir: string): DataDirLockedError | undefined {
  const dir = path.resolve(dataDir);
  const lockPath = lockPathFor(dir);
  const pid = readLockPid(lockPath);
  if (pid === undefined || pid === process.pid || !isAlive(pid)) return undefined;
  return new DataDirLockedError(dir, pid, lockPath);
}

/** Takes the lock for `dataDir` or throws DataDirLockedError. Returns the release function. */
export function acquireDataDirLock(dataDir: string, purpose = "bellwether"): () => void {
  const dir = path.resolve(dataDir);
  const lockPath = lockPathFor(dir);
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const body = JSON.stringify({ pid: process.pid, purpose, since: new Date().toISOString() });
      fs.writeFileSync(lockPath, body, { flag: "wx" }); // atomic create: exactly one winner
      held.add(dir);
      const onExit = () => release();
      function release() {
        process.off("exit", onExit);
        held.delete(dir);
        if (readLockPid(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
      }
      process.on("exit", onExit);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = readLockPid(lockPath);
      const ours = pid === process.pid;
      if (pid !== undefined && ((ours && held.has(dir)) || (!ours && isAlive(pid)))) {
        throw new DataDirLockedError(dir, pid, lockPath);
      }
      removeStaleLock(lockPath, pid);
    }
  }
  throw new Error(`Could not lock the embedded database ${dir}: ${lockPath} keeps reappearing.`);
}

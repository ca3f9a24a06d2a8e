// The CLI side of the embedded-database lock (server/db-lock.ts is the app side; same file format):
// two PGlite instances on one data directory corrupt it, so a migrate command refuses to open a
// directory the app (or another command) holds, and holds it itself while it runs.
import fs from "node:fs";
import path from "node:path";

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

function readPid(lockPath) {
  try {
    const pid = Number(JSON.parse(fs.readFileSync(lockPath, "utf8")).pid);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes `<dataDir>.lock` for this process; throws when a live process holds it. Returns a release function. */
export function lockPgliteDir(dataDir, purpose) {
  const lockPath = `${dataDir}.lock`;
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockPath, JSON.stringify({ pid: process.pid, purpose, since: new Date().toISOString() }), {
        flag: "wx",
      });
      const release = () => {
        if (readPid(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      const pid = readPid(lockPath);
      if (pid !== undefined && pid !== process.pid && isAlive(pid)) {
        throw new Error(
          `The embedded database ${dataDir} is in use by process ${pid}; stop it (e.g. the running app) or set DATABASE_URL. ` +
            `If no such process uses it, delete ${lockPath}.`,
        );
      }
      // Stale (its process is gone): move it aside atomically; restore it if a racer's fresh lock was moved.
      const aside = `${lockPath}.${process.pid}.stale`;
      try {
        fs.renameSync(lockPath, aside);
        if (readPid(aside) !== pid) fs.linkSync(aside, lockPath);
      } catch {
        // vanished or replaced meanwhile: the next attempt decides
      }
      fs.rmSync(aside, { force: true });
    }
  }
  throw new Error(`Could not lock the embedded database ${dataDir} (${lockPath} keeps reappearing).`);
}

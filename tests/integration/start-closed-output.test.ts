import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startApp, stopStartedProcesses, type TApp } from "../helpers/app-process";

/**
 * `npm start` whose output reader goes away (docs/operations.md, "Logs"): the test reads the server's stdout and stderr,
 * then closes both pipes, so the server's next write fails with EPIPE. Unhandled, that error reached Next's handler for
 * uncaught errors, which wrote about it to the same closed pipe, forever: the server spun at full CPU and ignored
 * SIGTERM. Now the write is dropped: the server still answers, and SIGTERM (whose shutdown line is such a write) stops
 * it, exit 0.
 */

let dataDir: string;
let app: TApp;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-closed-output-"));
  app = startApp({ DATA_DIR: path.join(dataDir, "data"), PORT: String(await freePort()), LOG_LEVEL: "info" });
  // The launcher's line before it becomes the server (after any build): the server's own start-up lines come next.
  await app.waitFor(/\[bellwether\] starting on/, 900_000);
}, 960_000);

afterAll(async () => {
  await stopStartedProcesses();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** CPU seconds the process has used (utime + stime, from /proc). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** /api/health's status, or 0 while nothing answers. */
async function health(url: string): Promise<number> {
  try {
    return (await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5_000) })).status;
  } catch {
    return 0;
  }
}

describe("a server whose output reader went away", () => {
  it("starts and answers, stays idle, and stops on SIGTERM with exit 0", async () => {
    const pid = app.proc.pid as number;
    // Closed before the server's start-up lines: each of them is a write to a pipe nobody reads.
    app.proc.stdout?.destroy();
    app.proc.stderr?.destroy();
    const deadline = Date.now() + 120_000;
    while ((await health(app.url)) !== 200) {
      if (Date.now() > deadline) expect.fail(`no answer in 120 s (CPU ${cpuSeconds(pid)} s)`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // Idle: a server looping on its failed writes burns a core.
    const before = cpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(cpuSeconds(pid) - before).toBeLessThan(1);
    app.proc.kill("SIGTERM");
    const code = await Promise.race([
      app.exited,
      new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 20_000)),
    ]);
    if (code === "still running") expect.fail("SIGTERM did not stop the server");
    expect(code).toBe(0);
  }, 180_000);
});

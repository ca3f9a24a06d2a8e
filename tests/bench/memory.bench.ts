import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { numberOption, type TBenchFlag, type TBenchmark } from "./harness";

const REQUESTS: TBenchFlag = {
  name: "requests",
  env: "BENCH_MEMORY_REQUESTS",
  default: 20,
  min: 1,
  max: 1000,
  integer: true,
  description: "page loads after start before the second reading",
};

/**
 * Whole-app resident memory, the way README states it: `npm start` on a fresh embedded database, then the sum of
 * RSS over the whole process tree (npm, the launcher, the Next server and any page workers), read from /proc —
 * once the app says it is ready, and again after the first requests (owner account, feed, trackers, settings).
 */

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** pid → parent pid for every process, from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(entry), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Resident MB of `root` and all its descendants, and how many processes that is. */
export function treeRssMb(root: number): { mb: number; processes: number } {
  const byParent = parents();
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of byParent) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  let kb = 0;
  for (const pid of tree) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return { mb: Math.round(kb / 1024), processes: tree.size };
}

async function waitForOutput(proc: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  let seen = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`app not ready in ${timeoutMs} ms:\n${seen.slice(-2000)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout?.on("data", onData);
    proc.stderr?.on("data", onData);
    proc.on("exit", (code) => reject(new Error(`app exited (${code}):\n${seen.slice(-2000)}`)));
  });
}

export const memoryBenchmark: TBenchmark = {
  name: "memory",
  description: "whole-app resident memory (process tree) after start and after the first requests",
  flags: [REQUESTS],
  async run(args, out) {
    const requests = numberOption(args, REQUESTS);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-memory-"));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = spawn("npm", ["start"], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOSTNAME: "127.0.0.1",
        LOG_LEVEL: "warn",
        DATABASE_URL: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    try {
      await waitForOutput(proc, /\[bellwether\] ready in/, 900_000);
      await new Promise((r) => setTimeout(r, 2000));
      const started = treeRssMb(proc.pid as number);
      const owner = await fetch(`${url}/api/auth/owner/create`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: url },
        body: JSON.stringify({ name: "Bench", email: "bench@bench.test", password: "bench bench bench" }),
      });
      const cookie = (owner.headers.getSetCookie().find((c) => c.includes("session_token=")) ?? "").split(";")[0] ?? "";
      const pages = ["/", "/trackers", "/trackers/new", "/settings"];
      for (let i = 0; i < requests; i++) {
        const res = await fetch(`${url}${pages[i % pages.length]}`, { headers: { cookie } });
        await res.arrayBuffer();
      }
      await new Promise((r) => setTimeout(r, 2000));
      const afterRequests = treeRssMb(proc.pid as number);
      out(`  whole process tree, embedded database, ${os.cpus().length} cores`);
      out(`  after start:                 ${started.mb} MB (${started.processes} processes)`);
      out(`  after ${requests} page loads:         ${afterRequests.mb} MB (${afterRequests.processes} processes)`);
    } finally {
      try {
        process.kill(-(proc.pid as number), "SIGTERM");
      } catch {
        // already gone
      }
      await new Promise((r) => setTimeout(r, 3000));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

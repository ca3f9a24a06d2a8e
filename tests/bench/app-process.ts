import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { procStat } from "./proc-stat";

/**
 * Pieces shared by the benchmarks that start the real app with `npm start` (memory, scheduler): a free port, the
 * app's process tree and its CPU from /proc, waiting for "ready", and the owner account and API token the public
 * API needs.
 */

export function freePort(): Promise<number> {
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

/** `root` and every process below it (children, their children …), read from /proc. */
export function processTree(root: number): number[] {
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
  return [...tree];
}

/**
 * CPU ms (user + system, all threads) used so far by `root` and all its descendants, including descendants that have
 * exited and been waited for (their time is in their parent's cutime/cstime), so the difference of two readings is
 * the whole tree's CPU between them even when processes come and go.
 */
export function treeCpuMs(root: number): { ms: number; processes: { pid: number; name: string; ms: number }[] } {
  const processes: { pid: number; name: string; ms: number }[] = [];
  for (const pid of processTree(root)) {
    const stat = procStat(pid);
    if (!stat) continue; // gone meanwhile
    let name = "";
    try {
      name = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    } catch {
      // gone meanwhile
    }
    processes.push({
      pid,
      name: /next-server/.test(name) ? "next-server" : name.slice(0, 40),
      ms: stat.cpuMs + stat.childrenCpuMs,
    });
  }
  return { ms: processes.reduce((sum, p) => sum + p.ms, 0), processes };
}

export type TProcessRss = { pid: number; name: string; mb: number };

/** One process's resident MB and a short name ("next-server" for Next's server), from /proc. */
export function processRss(pid: number): TProcessRss | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    const comm = /Name:\s+(.*)/.exec(status)?.[1] ?? "";
    const zombie = /State:\s+Z/.test(status) ? " (defunct)" : "";
    const name = /next-server/.test(cmdline) ? "next-server" : `${cmdline.slice(0, 60) || comm}${zombie}`;
    return { pid, name, mb: Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024) };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Resident MB of `root` and all its descendants, and how many processes that is. */
export function treeRssMb(root: number): { mb: number; processes: number } {
  const all = processTree(root)
    .map(processRss)
    .filter((p): p is TProcessRss => p !== undefined);
  return { mb: all.reduce((sum, p) => sum + p.mb, 0), processes: all.length };
}

/**
 * The group of a started app (`spawn("npm", ["start"], { detached: true })`: npm and the server it starts): the last
 * 4,000 characters it printed, whether any of its processes is still there, and `stop()` — SIGTERM to the group (the
 * server's graceful shutdown), SIGKILL after 15 s.
 */
export function appGroup(proc: ChildProcess): {
  root: number;
  tail: () => string;
  running: () => boolean;
  stop: () => Promise<void>;
} {
  const root = proc.pid as number;
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  const running = () => {
    try {
      process.kill(-root, 0);
      return true;
    } catch {
      return false;
    }
  };
  const stop = async () => {
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (!running()) break;
      try {
        process.kill(-root, signal);
      } catch {
        break; // gone meanwhile
      }
      for (let i = 0; i < 150 && running(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return { root, tail: () => output, running, stop };
}

/** Resolves once the app prints `pattern` (e.g. "[bellwether] ready in"); rejects when it exits or times out. */
export async function waitForOutput(proc: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
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

/** Creates the owner account of a fresh database; returns the session cookie. */
export async function createOwner(url: string): Promise<string> {
  const owner = await fetch(`${url}/api/auth/owner/create`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ name: "Bench", email: "bench@bench.test", password: "bench bench bench" }),
  });
  if (!owner.ok) throw new Error(`could not create the owner account: HTTP ${owner.status}`);
  return (owner.headers.getSetCookie().find((c) => c.includes("session_token=")) ?? "").split(";")[0] ?? "";
}

/** A tRPC mutation as the owner's browser sends it (superjson: the input goes under "json"); returns its result. */
export async function trpcMutation<TResult>(url: string, cookie: string, procedure: string, input: unknown) {
  const res = await fetch(`${url}/api/trpc/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url, cookie },
    body: JSON.stringify({ json: input }),
  });
  if (!res.ok) throw new Error(`tRPC ${procedure}: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { result: { data: { json: TResult } } }).result.data.json;
}

/** An API token for the public API, made from the owner's session (Settings → API tokens), as the demo does. */
export async function createApiToken(url: string, cookie: string, name: string): Promise<string> {
  return (await trpcMutation<{ token: string }>(url, cookie, "apiToken.create", { name })).token;
}

export type TCronSummary = {
  claimed: number;
  completed: number;
  failed: number;
  skipped: number;
  errors: number;
  outcomes: Record<string, number>;
};

/** One scheduler pass: calls the cron route until nothing is due (a call stops at its time budget). */
export async function cronPass(url: string, secret: string): Promise<TCronSummary> {
  const total: TCronSummary = { claimed: 0, completed: 0, failed: 0, skipped: 0, errors: 0, outcomes: {} };
  for (let call = 0; call < 50; call++) {
    const res = await fetch(`${url}/api/cron/refresh`, { headers: { authorization: `Bearer ${secret}` } });
    const body = (await res.json()) as TCronSummary & { ok?: boolean };
    if (!res.ok) throw new Error(`cron route answered ${res.status}: ${JSON.stringify(body)}`);
    if (body.claimed === 0) break;
    for (const key of ["claimed", "completed", "failed", "skipped", "errors"] as const) total[key] += body[key];
    for (const [k, v] of Object.entries(body.outcomes)) total.outcomes[k] = (total.outcomes[k] ?? 0) + v;
  }
  return total;
}

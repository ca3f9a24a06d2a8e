/**
 * `npm start`: check the configuration and the database, build when needed, then serve; stop gracefully.
 *
 * 1. Validates the environment first (server/env.ts, AI settings and serverless host included), so a bad
 *    value stops everything with one line naming the variable (exit 1) before any build or server starts.
 * 2. Checks the database (server/db-preflight.ts): PostgreSQL must answer (retried with a countdown for
 *    DATABASE_WAIT_MS) and be migrated; an embedded data directory must not be held by another process.
 * 3. Builds when there is no build or the sources changed since the last one (a content fingerprint
 *    of the sources and package-lock.json, kept in .next/).
 * 4. Runs `next start` on PORT (default 3000) and HOSTNAME (default 0.0.0.0) with NEXT_MANUAL_SIG_HANDLE,
 *    so the server's own graceful shutdown runs (server/lifecycle/); forwards SIGTERM/SIGINT/SIGHUP to it
 *    and exits with its code. The server opens the database before its first answer; /api/health is
 *    called once it listens to report readiness.
 */
import "./require-node.mjs"; // first: refuse to run on another Node.js major
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PreflightError, preflightDatabase } from "../server/db-preflight";
import { parseEnvOrExit, ZEnvSchema } from "../server/env";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// BELLWETHER_DIST_DIR (read by next.config.ts too) lets parallel test runs keep separate builds.
const DIST_DIR = process.env.BELLWETHER_DIST_DIR || ".next";
const NEXT_DIR = path.join(ROOT, DIST_DIR);
const FINGERPRINT_FILE = path.join(NEXT_DIR, "bellwether-source-fingerprint");
// Outside .next, because `next build` empties .next when it starts.
const BUILD_LOCK = path.join(ROOT, "node_modules", ".cache", `bellwether-build${DIST_DIR.replace(/[^\w]/g, "_")}.lock`);

/** What goes into the build. Anything else (tests, docs, .data) does not invalidate it. */
const SOURCE_DIRS = ["app", "components", "server", "public", "prisma"];
const SOURCE_FILES = [
  "package.json",
  "package-lock.json",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "instrumentation.ts",
  "proxy.ts",
  "middleware.ts",
];

const started = performance.now();
const say = (line: string) => process.stdout.write(`[bellwether] ${line}\n`);
const fail = (line: string): never => {
  process.stderr.write(`${line}\n`);
  process.exit(1);
};

function listFiles(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

function sourceFingerprint(): string {
  const files = [...SOURCE_DIRS.flatMap(listFiles), ...SOURCE_FILES.filter((f) => fs.existsSync(path.join(ROOT, f)))];
  const hash = createHash("sha256");
  for (const file of files.sort()) {
    hash.update(file);
    hash.update("\0");
    hash.update(fs.readFileSync(path.join(ROOT, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

function buildIsCurrent(fingerprint: string): boolean {
  if (!fs.existsSync(path.join(NEXT_DIR, "BUILD_ID"))) return false;
  try {
    return fs.readFileSync(FINGERPRINT_FILE, "utf8").trim() === fingerprint;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** One build at a time per checkout: a second `npm start` waits for the first one's build. */
async function withBuildLock<T>(work: () => Promise<T>): Promise<T> {
  fs.mkdirSync(path.dirname(BUILD_LOCK), { recursive: true });
  let announced = false;
  for (;;) {
    try {
      fs.writeFileSync(BUILD_LOCK, String(process.pid), { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(fs.readFileSync(BUILD_LOCK, "utf8"));
      if (!Number.isInteger(holder) || holder <= 0 || !isAlive(holder)) {
        fs.rmSync(BUILD_LOCK, { force: true }); // left behind by a crashed build
        continue;
      }
      if (!announced) say(`waiting for another build (pid ${holder}) to finish…`);
      announced = true;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  // `fail()` exits from inside `work`, so release on exit too, not only in `finally`.
  const release = () => {
    if (fs.existsSync(BUILD_LOCK) && fs.readFileSync(BUILD_LOCK, "utf8") === String(process.pid)) fs.rmSync(BUILD_LOCK);
  };
  process.on("exit", release);
  try {
    return await work();
  } finally {
    release();
  }
}

/**
 * The environment for the Next processes. Our config treats an empty variable as unset; third-party code
 * does not (e.g. @ai-sdk/openai's default provider throws at import on OPENAI_BASE_URL=""), so empty
 * values of our variables are removed rather than passed on.
 */
function childEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...overrides };
  for (const name of Object.keys(ZEnvSchema.shape)) {
    if (env[name]?.trim() === "") delete env[name];
  }
  return env;
}

const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
let child: ChildProcess | undefined;

/** Runs the Next CLI on this same Node (the project's Node 22), with telemetry off (no network here). */
function runNext(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  child = spawn(process.execPath, [nextBin, ...args], { cwd: ROOT, stdio: "inherit", env });
  return child;
}

function exitCodeOf(proc: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    proc.on("exit", (code, signal) => resolve(code ?? (signal ? 128 + (SIGNAL_NUMBERS[signal] ?? 1) : 1)));
  });
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
/** The first stop signal received; the child gets it once (Ctrl+C arrives from both the terminal and npm). */
let stopping: NodeJS.Signals | undefined;
const signalExitCode = (signal: NodeJS.Signals) => 128 + (SIGNAL_NUMBERS[signal] ?? 1);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = signal;
    if (child && child.exitCode === null) child.kill(signal);
    else process.exit(signalExitCode(signal));
  });
}

async function ensureBuild(): Promise<void> {
  if (buildIsCurrent(sourceFingerprint())) return;
  await withBuildLock(async () => {
    // Re-check under the lock: a concurrent start may have just built the same sources.
    const fingerprint = sourceFingerprint();
    if (buildIsCurrent(fingerprint)) return;
    say(fs.existsSync(NEXT_DIR) ? "sources changed since the last build; building…" : "first start; building…");
    const buildStarted = performance.now();
    const code = await exitCodeOf(runNext(["build"], childEnv({ NODE_ENV: "production" })));
    if (stopping) process.exit(signalExitCode(stopping));
    if (code !== 0) fail(`[bellwether] build failed (exit ${code}); see the output above.`);
    fs.writeFileSync(FINGERPRINT_FILE, `${fingerprint}\n`);
    say(`built in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s`);
  });
}

/** Asks the server to open the database once it listens; reports when the app is fully ready. */
async function warmUp(port: number, server: ChildProcess): Promise<void> {
  const url = `http://127.0.0.1:${port}/api/health`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && server.exitCode === null) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
      const body = (await res.json()) as { ok?: boolean; database?: string };
      if (stopping) return;
      if (res.ok && body.ok) {
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        say(`ready in ${seconds} s (database: ${body.database}) — rss ${serverRss(server)}`);
      } else {
        say("warning: the database is not healthy; see the server log above.");
      }
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Resident memory of the whole app: this launcher, the server and any processes it forks, for the start-up report. */
function serverRss(server: ChildProcess): string {
  try {
    const parents = new Map<number, number>();
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        // Fields after the command name, which is in parentheses and may contain spaces.
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        parents.set(Number(entry), ppid);
      } catch {
        // the process ended while we looked
      }
    }
    const tree = new Set([process.pid, server.pid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, ppid] of parents) {
        if (tree.has(ppid) && !tree.has(pid)) {
          tree.add(pid);
          grew = true;
        }
      }
    }
    let kb = 0;
    for (const pid of tree) {
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    }
    return `${Math.round(kb / 1024)} MB`;
  } catch {
    return "unknown";
  }
}

async function main(): Promise<void> {
  // Next reads these files itself; load them here first (the real environment wins) so that a bad value in
  // them stops start-up too, instead of surfacing at the first request.
  for (const file of [".env.production.local", ".env.local", ".env.production", ".env"]) {
    if (fs.existsSync(path.join(ROOT, file))) process.loadEnvFile(path.join(ROOT, file));
  }
  const config = parseEnvOrExit();
  try {
    await preflightDatabase(config, say);
  } catch (error) {
    if (error instanceof PreflightError) fail(error.message);
    throw error;
  }
  await ensureBuild();
  if (stopping) process.exit(signalExitCode(stopping));

  const port = String(config.PORT);
  const hostname = config.HOSTNAME;
  const shown = hostname === "0.0.0.0" || hostname === "::" ? "localhost" : hostname;
  say(`starting on http://${shown}:${port} (listening on ${hostname}) with Node.js ${process.versions.node}`);
  const server = runNext(
    ["start", "--port", port, "--hostname", hostname],
    // NEXT_MANUAL_SIG_HANDLE: Next's own handler closes the HTTP server and exits 143 without closing our
    // database; with it set, server/lifecycle/graceful-shutdown.ts drains, closes the database and exits 0.
    childEnv({ NODE_ENV: "production", PORT: port, HOSTNAME: hostname, NEXT_MANUAL_SIG_HANDLE: "1" }),
  );
  void warmUp(config.PORT, server);
  process.exit(await exitCodeOf(server));
}

await main();

/**
 * `npm start`: check the configuration and the database, build when needed, then serve; stop gracefully.
 *
 * 1. Validates the environment first (server/env.ts, AI settings and serverless host included), so a bad
 *    value stops everything with one line naming the variable (exit 1) before any build or server starts.
 * 2. Checks the database (server/db-preflight.ts): PostgreSQL must answer (retried with a countdown for
 *    DATABASE_WAIT_MS) and be migrated; an embedded data directory must not be held by another process.
 * 3. Builds when there is no build or the sources changed since the last one (a content fingerprint
 *    of the sources and package-lock.json, kept in .next/).
 * 4. Becomes `next start` on PORT (default 3000) and HOSTNAME (default 0.0.0.0) with NEXT_MANUAL_SIG_HANDLE,
 *    so the server's own graceful shutdown runs (server/lifecycle/), with the memory settings below: this process
 *    is replaced by the server (same pid, so npm and Ctrl+C signal it directly and get its exit code), rather than
 *    staying beside it. Where Node cannot do that (no `process.execve`), it runs the server as a child, forwards
 *    SIGTERM/SIGINT/SIGHUP to it and exits with its code. The server opens the database before its first answer;
 *    scripts/start-ready.mjs calls /api/health once it listens to report readiness.
 */
import "./require-node.mjs"; // first: refuse to run on another Node.js major
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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
  "scripts/drop-closed-output.mjs", // imported by instrumentation.ts
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

/** Runs the Next CLI on this same Node (the project's Node 24), with telemetry off (no network here). */
function runNext(args: string[], env: NodeJS.ProcessEnv, nodeFlags: readonly string[] = []): ChildProcess {
  child = spawn(process.execPath, [...nodeFlags, nextBin, ...args], { cwd: ROOT, stdio: "inherit", env });
  return child;
}

/**
 * Memory settings of the server process (docs/operations.md, "Memory and start-up time"; measured with `npm run bench -- memory`, 200 trackers
 * refreshed five times: the whole app stays under 600 MB instead of reaching 640–750 MB):
 * - MALLOC_MMAP_THRESHOLD_: glibc serves every allocation of 128 KB or more with its own mapping and returns it
 *   when freed. By default that threshold grows to the largest block freed so far, after which V8's large,
 *   short-lived buffers (compiling PGlite's WebAssembly to optimised code) are carved from malloc's heaps and
 *   stay resident after they are freed: 70–90 MB.
 * - MALLOC_ARENA_MAX: at most two malloc heaps instead of up to eight per core for the server's threads (V8's
 *   compiler and GC threads, libuv's pool, the page workers), each keeping its own free memory.
 * - --max-semi-space-size: V8's young generation may grow to 2 × 8 MB (default 2 × 16 MB).
 * - --heap-growing-percent: the next full collection runs once the JS heap has grown 50% past what survived the
 *   last one; by default V8 lets it grow up to 4× when the machine has memory to spare (seen: 110 MB live,
 *   290 MB held).
 * Values already in the environment (MALLOC_*, or the same flag in NODE_OPTIONS) win.
 */
const SERVER_MALLOC_ENV: Record<string, string> = { MALLOC_MMAP_THRESHOLD_: "131072", MALLOC_ARENA_MAX: "2" };
const SERVER_NODE_FLAGS = ["--max-semi-space-size=8", "--heap-growing-percent=50"];

function serverMemorySettings(): { env: Record<string, string>; flags: string[] } {
  const env = Object.fromEntries(Object.entries(SERVER_MALLOC_ENV).filter(([name]) => !process.env[name]));
  const nodeOptions = process.env.NODE_OPTIONS ?? "";
  const flags = SERVER_NODE_FLAGS.filter((flag) => !nodeOptions.includes(flag.split("=")[0] as string));
  return { env, flags };
}

/**
 * Starts the readiness report (scripts/start-ready.mjs: calls /api/health once the server listens, prints "ready"
 * with the server's resident memory), detached from this process so the server never has to reap it.
 */
async function announceReadiness(port: number, serverPid: number): Promise<void> {
  const startedAt = Math.round(Date.now() - (performance.now() - started));
  const script = path.join(ROOT, "scripts", "start-ready.mjs");
  const args = [script, "--detach", String(port), String(startedAt), String(serverPid)];
  await exitCodeOf(spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] }));
}

/**
 * Processes this one started and that still run (tsx's esbuild service). Stopped before execve: the server would
 * never reap them, so they would stay behind as defunct entries for its lifetime. Linux (/proc) only; elsewhere none.
 */
async function stopOwnChildren(): Promise<void> {
  const children = (): number[] => {
    try {
      return fs
        .readdirSync("/proc")
        .filter((entry) => /^\d+$/.test(entry))
        .filter((entry) => {
          try {
            const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
            return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === process.pid;
          } catch {
            return false; // ended meanwhile
          }
        })
        .map(Number);
    } catch {
      return [];
    }
  };
  for (const pid of children()) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // ended meanwhile
    }
  }
  // Reaped by the code that started them (Node's own child handling) once they exit.
  for (let i = 0; i < 40 && children().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
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

const BUILD_PROGRESS_MS = 30_000;

async function ensureBuild(): Promise<void> {
  if (buildIsCurrent(sourceFingerprint())) return;
  await withBuildLock(async () => {
    // Re-check under the lock: a concurrent start may have just built the same sources.
    const fingerprint = sourceFingerprint();
    if (buildIsCurrent(fingerprint)) return;
    say(fs.existsSync(NEXT_DIR) ? "sources changed since the last build; building…" : "first start; building…");
    const buildStarted = performance.now();
    // Next prints nothing between "Creating an optimized production build" and its end: say that it is still going.
    const progress = setInterval(() => {
      const seconds = Math.round((performance.now() - buildStarted) / 1000);
      say(
        `still building (${Math.floor(seconds / 60)} min ${seconds % 60} s; a first build takes from under a minute to several on 2 cores)…`,
      );
    }, BUILD_PROGRESS_MS);
    const code = await exitCodeOf(runNext(["build"], childEnv({ NODE_ENV: "production" }))).finally(() =>
      clearInterval(progress),
    );
    if (stopping) process.exit(signalExitCode(stopping));
    if (code !== 0) fail(`[bellwether] build failed (exit ${code}); see the output above.`);
    fs.writeFileSync(FINGERPRINT_FILE, `${fingerprint}\n`);
    say(`built in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s`);
  });
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
  const memory = serverMemorySettings();
  // Before Next writes its first line: output nobody reads is dropped (docs/operations.md, "Logs").
  const flags = [...memory.flags, "--import", pathToFileURL(path.join(ROOT, "scripts", "drop-closed-output.mjs")).href];
  const args = ["start", "--port", port, "--hostname", hostname];
  // NEXT_MANUAL_SIG_HANDLE: Next's own handler closes the HTTP server and exits 143 without closing our
  // database; with it set, server/lifecycle/graceful-shutdown.ts drains, closes the database and exits 0.
  const env = childEnv({ NODE_ENV: "production", PORT: port, HOSTNAME: hostname, NEXT_MANUAL_SIG_HANDLE: "1" });
  Object.assign(env, memory.env);
  if (typeof process.execve === "function") {
    await announceReadiness(config.PORT, process.pid);
    await stopOwnChildren();
    // This process's work is done; staying beside the server to forward signals would keep ~90 MB resident
    // (Node, tsx and its esbuild service) for the app's lifetime.
    process.execve(process.execPath, [process.execPath, ...flags, nextBin, ...args], env);
  }
  const server = runNext(args, env, flags);
  await announceReadiness(config.PORT, server.pid as number);
  process.exit(await exitCodeOf(server));
}

await main();

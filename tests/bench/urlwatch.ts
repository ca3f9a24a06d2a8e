import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { procStat } from "./proc-stat";

/**
 * urlwatch (https://thp.io/2008/urlwatch/, the Debian package) as the peer benchmark's baseline: a
 * widely used change monitor that fetches each URL, filters it and compares it with its cache.
 *
 * It runs as installed, through a small Python launcher that only (a) sets its worker-pool size (urlwatch
 * 2.25 has no flag for it: `urlwatch.worker.MAX_WORKERS`, fixed at 10) so both sides have the same
 * concurrency, and (b) times its job loop (`run_jobs`, what compares with Bellwether's claim loop) apart
 * from the whole process (Python start-up, config and cache loading), and reads the verdict per job
 * (new / changed / unchanged / error) and CPU time. Everything lives in a temporary directory: urls.yaml,
 * config.yaml (every reporter off), the cache database and a hooks path that does not exist (so the
 * user's ~/.config/urlwatch/hooks.py is never loaded).
 */

const LAUNCHER = `
import json, resource, sys, time
workers = int(sys.argv.pop(1))
stats_path = sys.argv.pop(1)
import urlwatch
import urlwatch.worker as worker
import urlwatch.main as main
if not hasattr(worker, "MAX_WORKERS"):
    sys.exit("this urlwatch has no urlwatch.worker.MAX_WORKERS; cannot set its concurrency")
worker.MAX_WORKERS = workers
stats = {"version": urlwatch.__version__}
run_jobs = main.run_jobs
def timed_run_jobs(urlwatcher):
    cpu0, t0 = time.process_time(), time.perf_counter()
    try:
        return run_jobs(urlwatcher)
    finally:
        stats["jobsMs"] = (time.perf_counter() - t0) * 1000
        stats["jobsCpuMs"] = (time.process_time() - cpu0) * 1000
        verbs = {}
        for state in urlwatcher.report.job_states:
            verbs[state.verb] = verbs.get(state.verb, 0) + 1
        stats["verbs"] = verbs
main.run_jobs = timed_run_jobs
from urlwatch.cli import main as cli_main
sys.argv[0] = "urlwatch"
try:
    cli_main()
finally:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    stats["cpuMs"] = (usage.ru_utime + usage.ru_stime) * 1000
    with open(stats_path, "w") as f:
        json.dump(stats, f)
`;

const CONFIG = `display:
  new: false
  error: true
  unchanged: false
  empty-diff: false
report:
  stdout:
    enabled: false
    color: false
  email:
    enabled: false
`;

export type TUrlwatchRun = {
  /** The whole process, spawn to exit, as measured here. */
  wallMs: number;
  /** Its job loop (fetch, filter, compare, save) as measured inside it. */
  jobsMs: number;
  /** CPU of the whole process, and of the job loop (all threads), as it reads them itself. */
  cpuMs: number;
  jobsCpuMs: number;
  /** Jobs per verdict: new, changed, unchanged, error. */
  verbs: Record<string, number>;
  /**
   * CPU of its whole process tree (it and anything it started, all threads), read from /proc outside it: what this
   * process's waited-for children used during the run (cutime + cstime; 10 ms ticks). NaN off Linux.
   */
  treeCpuMs: number;
};

export type TUrlwatch = {
  version: string;
  /** "/usr/bin/urlwatch (python /usr/bin/python3)". */
  where: string;
  run(): Promise<TUrlwatchRun>;
  close(): void;
};

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The interpreter urlwatch itself starts with (its shebang), so the launcher imports the same installation. */
function interpreterOf(script: string): string | undefined {
  const first = fs.readFileSync(script, "utf8").split("\n", 1)[0] ?? "";
  const match = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first);
  if (!match) return undefined;
  // "#!/usr/bin/env python3" → python3 from PATH
  if (match[1]?.endsWith("/env") && match[2]) return findOnPath(match[2]);
  return match[1];
}

/** A child environment without proxy settings (requests honours them; every URL here is local). */
function childEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, PYTHONDONTWRITEBYTECODE: "1" };
  for (const key of Object.keys(env)) {
    if (/^(https?|all|no)_proxy$/i.test(key)) delete env[key];
  }
  return env;
}

function runProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Asynchronous on purpose: the fixture site urlwatch fetches from may run on this process's event loop.
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Prepares urlwatch for `urls` in a fresh temporary directory, or says why it cannot (not installed, not
 * importable): the peer benchmark prints that and skips urlwatch.
 */
export async function prepareUrlwatch(
  urls: readonly string[],
  options: {
    concurrency: number;
    tmpRoot: string /** Path or name; default "urlwatch" on PATH. */;
    executable?: string;
  },
): Promise<TUrlwatch | { skipped: string }> {
  const wanted = options.executable?.trim() || "urlwatch";
  const executable = wanted.includes("/") ? (fs.existsSync(wanted) ? wanted : undefined) : findOnPath(wanted);
  if (!executable) {
    return {
      skipped: `urlwatch is not installed (${wanted.includes("/") ? `no ${wanted}` : `no ${wanted} on PATH`}; Debian: apt-get install urlwatch)`,
    };
  }
  const python = interpreterOf(executable);
  if (!python) return { skipped: `cannot tell which Python runs ${executable} (no #! line)` };
  const dir = fs.mkdtempSync(path.join(options.tmpRoot, "bellwether-urlwatch-"));
  const env = childEnv(dir);
  const probe = await runProcess(python, ["-c", "import urlwatch, urlwatch.worker; print(urlwatch.__version__)"], env);
  if (probe.code !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    return { skipped: `${executable} is there but its Python (${python}) cannot import it: ${probe.stderr.trim()}` };
  }
  const files = {
    launcher: path.join(dir, "run-urlwatch.py"),
    urls: path.join(dir, "urls.yaml"),
    config: path.join(dir, "config.yaml"),
    cache: path.join(dir, "cache.db"),
    hooks: path.join(dir, "no-hooks.py"),
    stats: path.join(dir, "stats.json"),
  };
  fs.writeFileSync(files.launcher, LAUNCHER);
  fs.writeFileSync(files.config, CONFIG);
  // The page's content, as text, without the volatile head and scripts: urlwatch's usual css + html2text filter.
  fs.writeFileSync(
    files.urls,
    urls
      .map((url, i) => `name: "page ${i}"\nurl: ${JSON.stringify(url)}\nfilter:\n  - css: main\n  - html2text\n`)
      .join("---\n"),
  );
  const args = [
    files.launcher,
    String(options.concurrency),
    files.stats,
    "--urls",
    files.urls,
    "--config",
    files.config,
    "--cache",
    files.cache,
    "--hooks",
    files.hooks,
  ];
  return {
    version: probe.stdout.trim(),
    where: `${executable} (${python})`,
    async run() {
      fs.rmSync(files.stats, { force: true });
      // Its tree's CPU: once it has exited and been waited for, it is in this process's children's time. No other
      // child of this process exits meanwhile (the apps and the fixture site live on).
      const children0 = procStat(process.pid)?.childrenCpuMs ?? Number.NaN;
      const started = performance.now();
      const result = await runProcess(python, args, env);
      const wallMs = performance.now() - started;
      const treeCpuMs = (procStat(process.pid)?.childrenCpuMs ?? Number.NaN) - children0;
      if (result.code !== 0 || !fs.existsSync(files.stats)) {
        throw new Error(`urlwatch exited with ${result.code}: ${(result.stderr || result.stdout).trim().slice(-2000)}`);
      }
      const stats = JSON.parse(fs.readFileSync(files.stats, "utf8")) as Omit<TUrlwatchRun, "wallMs" | "treeCpuMs">;
      return {
        wallMs,
        jobsMs: stats.jobsMs,
        cpuMs: stats.cpuMs,
        jobsCpuMs: stats.jobsCpuMs,
        verbs: stats.verbs ?? {},
        treeCpuMs,
      };
    },
    close() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

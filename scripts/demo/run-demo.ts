/**
 * `npm run demo`: Bellwether with a bundled local demo site whose pages change over time, and four
 * trackers bound to it — real timelines and feed cards within minutes, offline.
 *
 * 1. Starts the demo site (127.0.0.1:4545, `--site-port N`), which moves one step every 45 s (`--tick-seconds N`).
 * 2. Starts the app (`npm start`) on PORT (default 3000) with its own embedded database in ./.data-demo
 *    (unless DATABASE_URL or DATA_DIR is set), allowed to fetch the demo site, with a refresh limit that fits the
 *    demo (demo-app-env.ts). The app's own scheduler refreshes due trackers; the demo prints whether it runs.
 * 3. Creates the owner account (demo@bellwether.local / bellwether-demo; `--email`, `--password` for another, or to
 *    sign in to a database that already has an owner), an API token and, on a fresh database, the trackers
 *    (through the public API), then plays the first few steps at once so every tracker has history
 *    (play-demo.ts); afterwards each tick advances the site and refreshes the trackers.
 * Ctrl+C stops everything.
 */
import "../require-node.mjs"; // first: refuse to run on another Node.js major
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnvOrExit } from "../../server/env";
import { createDemoApi } from "./demo-api";
import { demoAppEnv, describeRefreshLimit, readDotEnvFiles } from "./demo-app-env";
import { startDemoSite } from "./demo-site";
import { demoTrackers } from "./demo-trackers";
import { refreshDemoTrackers, setUpDemoTrackers } from "./play-demo";
import { schedulerNote } from "./scheduler-note";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const say = (line: string) => process.stdout.write(`[demo] ${line}\n`);

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) {
    process.stderr.write(`--${name} must be a positive number\n`);
    process.exit(1);
  }
  return value;
}

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

/** Creates the owner account (fresh database) or signs in as it; returns the session cookie. */
async function signInAsOwner(appUrl: string, owner: { name: string; email: string; password: string }) {
  const post = (path: string, body: unknown) =>
    fetch(`${appUrl}/api/auth${path}`, {
      method: "POST",
      // The app refuses state-changing requests that do not come from its own origin (CSRF).
      headers: { "content-type": "application/json", origin: appUrl },
      body: JSON.stringify(body),
    });
  let res = await post("/owner/create", owner);
  if (res.status === 409) res = await post("/sign-in/email", { email: owner.email, password: owner.password });
  if (!res.ok) {
    throw new Error(
      `could not sign in as ${owner.email} (HTTP ${res.status}); this database has another owner: pass --email and --password`,
    );
  }
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** Polls until the app answers; returns its answer (GET /api/health's body). */
async function waitFor(url: string, timeoutMs: number, child: ChildProcess): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the app exited (code ${child.exitCode}) before it was ready`);
    try {
      const res = await fetch(url);
      if (res.ok) return await res.json();
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the app did not answer ${url} within ${Math.round(timeoutMs / 1000)} s`);
}

async function main() {
  const processEnv = process.env;
  // The person's settings as the app will see them (start.ts loads the same .env files under the environment).
  const seen = { ...readDotEnvFiles(ROOT), ...processEnv };
  const env = parseEnvOrExit(seen);
  const sitePort = flag("site-port", 4545);
  const tickSeconds = flag("tick-seconds", 45);
  const site = await startDemoSite(sitePort);
  say(`demo site on ${site.url}`);

  const appUrl = `http://127.0.0.1:${env.PORT}`;
  const { overrides, refreshLimit } = demoAppEnv({
    processEnv,
    seen,
    env,
    sitePort,
    tickSeconds,
    trackers: demoTrackers(site.url).length,
    keepDataDir: process.argv.includes("--keep-data-dir"),
  });
  say(describeRefreshLimit(refreshLimit));
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...processEnv, ...overrides },
  });
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("stopping…");
    if (child.exitCode === null) child.kill("SIGTERM");
    await site.close();
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  child.on("exit", (code) => {
    if (!stopping) {
      say(`the app exited (code ${code})`);
      void stop(code ?? 1);
    }
  });

  const health = await waitFor(`${appUrl}/api/health`, 600_000, child);

  const owner = {
    name: "Demo owner",
    email: option("email", "demo@bellwether.local"),
    password: option("password", "bellwether-demo"),
  };
  const cookie = await signInAsOwner(appUrl, owner);
  const tokenRes = await fetch(`${appUrl}/api/trpc/apiToken.create`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: appUrl, cookie },
    body: JSON.stringify({ json: { name: `demo ${new Date().toISOString()}` } }),
  });
  if (!tokenRes.ok) throw new Error(`could not create an API token: HTTP ${tokenRes.status}`);
  const token = ((await tokenRes.json()) as { result: { data: { json: { token: string } } } }).result.data.json.token;
  const api = createDemoApi({
    appUrl,
    token,
    onWait: (ms, request) =>
      say(`  ${request}: refused for now (HTTP 429); waiting ${Math.ceil(ms / 1000)} s as asked`),
  });

  const ids = await setUpDemoTrackers(api, site, say);

  say(`ready: open ${appUrl}/trackers and sign in as ${owner.email} / ${owner.password}`);
  say(schedulerNote(health));
  say(`the site moves every ${tickSeconds} s; Ctrl+C to stop`);
  for (;;) {
    await new Promise((r) => setTimeout(r, tickSeconds * 1000));
    if (stopping) return;
    say(`demo site → step ${site.advance()}`);
    try {
      await refreshDemoTrackers(api, ids, say);
    } catch (error) {
      say(`tick failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

main().catch((error) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

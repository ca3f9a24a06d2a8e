/**
 * `npm run demo`: Bellwether with a bundled local demo site whose pages change over time, and four
 * trackers bound to it — real timelines and feed cards within minutes, offline.
 *
 * 1. Starts the demo site (127.0.0.1:4545, `--site-port N`), which moves one step every 45 s (`--tick-seconds N`).
 * 2. Starts the app (`npm start`) on PORT (default 3000) with its own embedded database in ./.data-demo
 *    (unless DATABASE_URL or DATA_DIR is set), allowed to fetch the demo site, with a CRON_SECRET.
 * 3. Creates the owner account (demo@bellwether.local / bellwether-demo; `--email`, `--password` for another, or to
 *    sign in to a database that already has an owner), an API token and, on a fresh database, the trackers
 *    (through the public API), then plays
 *    the first few steps at once so every tracker has history; afterwards each tick advances the site,
 *    refreshes the trackers, and runs the scheduler (/api/cron/refresh).
 * Ctrl+C stops everything.
 */
import "../require-node.mjs"; // first: refuse to run on another Node.js major
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnvOrExit } from "../../server/env";
import { startDemoSite } from "./demo-site";
import { demoTrackers } from "./demo-trackers";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const say = (line: string) => process.stdout.write(`[demo] ${line}\n`);
const PRELUDE_STEPS = 4;

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

async function waitFor(url: string, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the app exited (code ${child.exitCode}) before it was ready`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the app did not answer ${url} within ${Math.round(timeoutMs / 1000)} s`);
}

async function main() {
  const env = parseEnvOrExit();
  const sitePort = flag("site-port", 4545);
  const tickMs = flag("tick-seconds", 45) * 1000;
  const site = await startDemoSite(sitePort);
  say(`demo site on ${site.url}`);

  const cronSecret = env.CRON_SECRET ?? randomBytes(24).toString("base64url");
  const appUrl = `http://127.0.0.1:${env.PORT}`;
  const customDb = Boolean(env.DATABASE_URL) || process.argv.includes("--keep-data-dir");
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: ROOT,
    stdio: "inherit",
    env: {
      ...process.env,
      CRON_SECRET: cronSecret,
      FETCH_ALLOW_HOSTS: [...env.FETCH_ALLOW_HOSTS, `127.0.0.1:${sitePort}`].join(","),
      ...(customDb || process.env.DATA_DIR ? {} : { DATA_DIR: "./.data-demo" }),
    },
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

  await waitFor(`${appUrl}/api/health`, 600_000, child);

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
  const api = async (method: string, pathname: string, body?: unknown) => {
    const res = await fetch(`${appUrl}/api/v1${pathname}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${pathname}: HTTP ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  const existing = (
    (await api("GET", "/trackers")).trackers as { id: string; capabilityInput?: unknown; target: string }[]
  ).filter((t) => t.target.startsWith(site.url));
  let ids = existing.map((t) => t.id);
  const refreshAll = async () => {
    for (const id of ids) {
      const { run } = (await api("POST", `/trackers/${id}/refresh`)) as { run: { summary: string } };
      say(`  ${id.slice(0, 8)}… ${run.summary}`);
    }
  };
  if (ids.length === 0) {
    for (const tracker of demoTrackers(site.url)) {
      const created = (await api("POST", "/trackers", tracker)) as { tracker: { id: string } };
      ids.push(created.tracker.id);
    }
    say(`created ${ids.length} trackers; recording their history…`);
    await refreshAll();
    for (let i = 0; i < PRELUDE_STEPS; i++) {
      say(`demo site → step ${site.advance()}`);
      await refreshAll();
    }
  } else {
    say(`found ${ids.length} demo trackers from an earlier run`);
    ids = existing.map((t) => t.id);
  }

  say(`ready: open ${appUrl}/trackers and sign in as ${owner.email} / ${owner.password}`);
  say(`the site moves every ${tickMs / 1000} s; Ctrl+C to stop`);
  for (;;) {
    await new Promise((r) => setTimeout(r, tickMs));
    if (stopping) return;
    say(`demo site → step ${site.advance()}`);
    try {
      await refreshAll();
      const cron = await fetch(`${appUrl}/api/cron/refresh`, { headers: { authorization: `Bearer ${cronSecret}` } });
      const summary = (await cron.json()) as { claimed?: number };
      say(`  scheduler: ${summary.claimed ?? 0} due tracker(s) refreshed`);
    } catch (error) {
      say(`tick failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

main().catch((error) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

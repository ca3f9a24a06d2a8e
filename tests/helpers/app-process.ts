import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { cssPriceDefinition } from "../fixtures/price-definition";

/**
 * The app as users run it, in tests: `npm start`'s launcher (scripts/start.ts), a production build and real
 * processes. Every file that starts apps shares one build directory, so the build happens once per run (the
 * launcher's build lock makes a second file wait for the first one's build, then finds it current).
 */
export const root = path.resolve(import.meta.dirname, "../..");
export const TEST_DIST_DIR = ".next-test-lifecycle";

export type TApp = {
  proc: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
  waitFor: (pattern: RegExp, timeoutMs: number) => Promise<void>;
};

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A clean environment for the launcher: no setting of the test runner's leaks in, only these. */
export function launcherEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    NODE_ENV: "production",
    BELLWETHER_DIST_DIR: TEST_DIST_DIR,
    HOSTNAME: "127.0.0.1",
    AI_PROVIDER: "rules",
    LOG_LEVEL: "warn",
    ...extra,
  };
}

/** Every process started here, so a file's afterAll can stop what a failed test left running. */
export const startedProcesses: TApp[] = [];

/** Runs `args` on this Node in its own process group (a failed test stops it and its children together). */
export function spawnTracked(args: string[], env: NodeJS.ProcessEnv, url: string): TApp {
  const proc = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  proc.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  proc.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  const waitFor = async (pattern: RegExp, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(output)) {
      if (proc.exitCode !== null)
        throw new Error(`the process exited (${proc.exitCode}) before ${pattern}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} in time:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const started = { proc, url, output: () => output, exited, waitFor };
  startedProcesses.push(started);
  return started;
}

/** `npm start` (the launcher) with `env` on top of launcherEnv; PORT must be set. */
export function startApp(env: Record<string, string>): TApp {
  return spawnTracked(["--import", "tsx", "scripts/start.ts"], launcherEnv(env), `http://127.0.0.1:${env.PORT}`);
}

/** Stops every process still running (after a failure: kill -9 to the whole group) and waits for it. */
export async function stopStartedProcesses(): Promise<void> {
  for (const started of startedProcesses.splice(0)) {
    if (started.proc.exitCode === null && started.proc.signalCode === null) {
      if (started.proc.pid) process.kill(-started.proc.pid, "SIGKILL");
      await started.exited;
    }
  }
}

export async function until(condition: () => boolean, what: string, app: TApp, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the app said:\n${app.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** First run: create the owner account (as its page does); the signed-in cookie and an API token minted with it. */
export async function createOwner(app: TApp, email = "owner@app.test"): Promise<{ cookie: string; token: string }> {
  const owner = await fetch(`${app.url}/api/auth/owner/create`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.url },
    body: JSON.stringify({ name: "Owner", email, password: "correct horse battery" }),
  });
  if (owner.status !== 200) throw new Error(`creating the owner answered ${owner.status}: ${await owner.text()}`);
  const cookie = (owner.headers.getSetCookie().find((c) => c.includes("session_token=")) ?? "").split(";")[0] ?? "";
  const token = (await callTrpc<{ token: string }>(app, cookie, "apiToken.create", { name: "test" })).token;
  return { cookie, token };
}

/** A tRPC mutation as the signed-in browser sends it (superjson body, same-origin). */
export async function callTrpc<T>(app: TApp, cookie: string, procedure: string, input: unknown): Promise<T> {
  const res = await fetch(`${app.url}/api/trpc/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.url, cookie },
    body: JSON.stringify({ json: input }),
  });
  if (res.status !== 200) throw new Error(`${procedure} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

export async function callApi(
  app: TApp,
  token: string,
  method: string,
  pathname: string,
  body?: unknown,
  signal?: AbortSignal,
) {
  const res = await fetch(`${app.url}/api/v1${pathname}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A price tracker as the public API creates it (tests/fixtures/price-definition.ts, material on a 5 % move). */
export function priceTrackerRequest(url: string, decision: string, scheduleMinutes = 60) {
  return {
    decision,
    capability: "web.scrape",
    capabilityInput: { url },
    scheduleMinutes,
    definition: cssPriceDefinition(0.05),
  };
}

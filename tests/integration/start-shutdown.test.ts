import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgliteDb } from "@/server/db";
import { acquireDataDirLock, lockPathFor } from "@/server/db-lock";
import { embeddedDatabaseDir } from "@/server/db-pglite";
import { requiredNodeMajor } from "../../scripts/require-node.mjs";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import {
  callApi,
  createOwner,
  freePort,
  launcherEnv,
  priceTrackerRequest,
  root,
  startApp,
  stopStartedProcesses,
  type TApp,
  until,
} from "../helpers/app-process";
import { createPostgresTestDb, hasPostgres } from "../helpers/db";
import { readClusterState } from "../helpers/pg-control";

/**
 * `npm start` as users run it (the real launcher, a production build, the embedded database on disk),
 * stopped with SIGTERM while refreshes are in flight. The refreshes fetch pages from the fixture site,
 * which holds each response, so they are provably in flight when the signal arrives. One build for the
 * whole file, in its own dist dir so it never disturbs another build.
 */
const PAGES = ["/p1", "/p2", "/p3", "/p4", "/p5"];
const PRICE_PAGE = (price: string) => `<html><body><h1>Plan</h1><span id="price">$${price}</span></body></html>`;

/**
 * Runs a command to its end without blocking this process (the fixture site lives here and must keep
 * answering the running app).
 */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    proc.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 120_000);
    proc.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** An open tRPC subscription (server-sent events), as the feed page keeps one: resolves `ended` when the server ends it. */
async function openEventStream(baseUrl: string): Promise<{ ended: Promise<void> }> {
  const input = encodeURIComponent(JSON.stringify({ json: { intervalMs: 200 } }));
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${baseUrl}/api/trpc/system.heartbeat?input=${input}`,
      { agent: false, headers: { accept: "text/event-stream" } },
      (res) => {
        const ended = new Promise<void>((done) => res.on("close", () => done()));
        res.once("data", () => resolve({ ended }));
        res.on("error", () => {}); // the server ends it by closing the connection
      },
    );
    req.on("error", reject);
  });
}

/** A request on a fresh connection (no keep-alive pool): resolves with the status or the socket error code. */
function freshRequest(url: string): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(String(res.statusCode));
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** One locked price tracker per page; page → tracker id. */
async function createTrackers(app: TApp, token: string, site: TFixtureSite): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const page of PAGES) {
    const created = await callApi(
      app,
      token,
      "POST",
      "/trackers",
      priceTrackerRequest(site.urlFor(page), `Is the plan at ${page} getting cheaper?`),
    );
    expect(created.status).toBe(201);
    ids.set(page, (created.body.tracker as { id: string }).id);
  }
  return ids;
}

/**
 * kill -9 while every tracker's refresh is in flight (held at the fixture site), then start again: within
 * 10 s of being ready every tracker refreshes again (its dead lease is reclaimed), and the runs log has no
 * run left pending or running (issue "Refresh at the floor").
 */
/**
 * Every tracker is in flight at once when the process dies, all on the one fixture host: the per-host gate
 * (docs/scheduling.md, "Politeness per host") is opened wide here, or its two-at-a-time limit would hold three of
 * the five refreshes back and answer them "busy" — that is the gate's own test (host-politeness.test.ts), not this one.
 */
const CRASH_TEST_LIMITS = { RATE_LIMIT_REFRESHES: "10000", HOST_MAX_IN_FLIGHT: "16", HOST_MIN_GAP_MS: "0" };

async function crashAndRecover(input: {
  start: () => TApp;
  token: string;
  trackerIds: Map<string, string>;
  site: TFixtureSite;
}): Promise<void> {
  const { site, token, trackerIds } = input;
  let app = input.start();
  await app.waitFor(/\[bellwether\] ready in/, 300_000);
  for (const page of PAGES) site.setPage(page, { body: PRICE_PAGE("7.00"), delayMs: 8_000 });
  const before = new Map(PAGES.map((page) => [page, site.hits(page)]));
  // A lease left by the previous test's process may still be live for a few seconds: a refresh answered
  // "skipped: in flight" is asked again until every page is being fetched.
  const started = app;
  const refreshUntilFetching = async (page: string): Promise<unknown> => {
    while (started.proc.exitCode === null && started.proc.signalCode === null) {
      const res = await callApi(started, token, "POST", `/trackers/${trackerIds.get(page)}/refresh`).catch(
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      if (res instanceof Error || (res.body.run as { status: string }).status !== "skipped") return res;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return null;
  };
  const inFlight = PAGES.map(refreshUntilFetching);
  await until(() => PAGES.every((page) => site.hits(page) > (before.get(page) ?? 0)), "every refresh to fetch", app);
  if (app.proc.pid) process.kill(-app.proc.pid, "SIGKILL");
  await app.exited;
  for (const failed of await Promise.all(inFlight)) expect(failed).toBeInstanceOf(Error);

  for (const page of PAGES) site.setPage(page, { body: PRICE_PAGE("6.00") });
  app = input.start();
  await app.waitFor(/\[bellwether\] ready in/, 300_000);
  const deadline = Date.now() + 10_000;
  for (const page of PAGES) {
    for (;;) {
      const res = await callApi(app, token, "POST", `/trackers/${trackerIds.get(page)}/refresh`);
      expect(res.status).toBe(201);
      const run = res.body.run as { status: string };
      if (run.status === "completed") break;
      expect(run.status).toBe("skipped"); // the dead process's lease, until it expires
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  expect(Date.now()).toBeLessThanOrEqual(deadline);
  for (const page of PAGES) {
    const runs = await callApi(app, token, "GET", `/trackers/${trackerIds.get(page)}/runs`);
    const statuses = (runs.body.runs as { status: string }[]).map((r) => r.status);
    expect(statuses).toContain("completed");
    expect(statuses.filter((s) => s === "pending" || s === "running")).toEqual([]);
  }
  app.proc.kill("SIGTERM");
  expect(await app.exited).toBe(0);
}

describe("npm start stops gracefully", () => {
  let site: TFixtureSite;
  let dataDir: string;
  let env: Record<string, string>;
  let app: TApp;
  let token: string;
  const trackerIds = new Map<string, string>();

  const api = (method: string, pathname: string, body?: unknown, signal?: AbortSignal) =>
    callApi(app, token, method, pathname, body, signal);

  beforeAll(async () => {
    site = await startFixtureSite();
    for (const page of PAGES) site.setPage(page, { body: PRICE_PAGE("10.00") });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-start-shutdown-"));
    env = {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
      SHUTDOWN_GRACE_MS: "120000", // a bound, not an expectation: the held pages answer long before it
      // These tests hold and count the refreshes they start; the server's own scheduler would start its own on the
      // same trackers (due once locked). Its stop with the server is tested in scheduler-default-install.test.ts.
      SCHEDULER: "off",
    };
    app = startApp(env);
    await app.waitFor(/\[bellwether\] ready in/, 900_000); // includes this file's one build
    // npm start says which Node.js it runs on: the project's (engines.node), not the machine's.
    expect(app.output()).toMatch(new RegExp(`with Node\\.js ${requiredNodeMajor}\\.\\d+\\.\\d+`));

    token = (await createOwner(app, "owner@shutdown.test")).token;
    for (const [page, id] of await createTrackers(app, token, site)) trackerIds.set(page, id);
  }, 960_000);

  afterAll(async () => {
    await stopStartedProcesses(); // only after a failure is anything left
    await site?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses a second npm start on the same data directory at once, naming the running server", async () => {
    const holder = JSON.parse(fs.readFileSync(lockPathFor(embeddedDatabaseDir(dataDir)), "utf8")) as { pid: number };
    // PORT 1: it never gets as far as listening, it is refused first.
    const second = await run(["--import", "tsx", "scripts/start.ts"], launcherEnv({ DATA_DIR: dataDir, PORT: "1" }));
    expect(second.code).toBe(1);
    expect(second.stderr.trim().split("\n")).toHaveLength(1);
    expect(second.stderr).toMatch(
      new RegExp(`^The embedded database .* is in use by process ${holder.pid} \\(next-server`),
    );
    expect(second.stdout).not.toMatch(/building|starting on/);
  });

  it("refuses in the server too: a platform's plain `next start` stops with one line and exit 1", async () => {
    // The same checks run in the serving process (instrumentation.ts) before its first answer, so a
    // start command other than npm start — or a data directory taken after npm start looked — is refused.
    const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
    const port = String(await freePort());
    const plainStart = (extra: Record<string, string>) =>
      run([nextBin, "start", "--port", port, "--hostname", "127.0.0.1"], {
        ...launcherEnv(extra),
        NEXT_TELEMETRY_DISABLED: "1",
      });
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-plain-start-"));
    const release = acquireDataDirLock(embeddedDatabaseDir(otherDir));
    try {
      const locked = await plainStart({ DATA_DIR: otherDir });
      expect(locked.code).toBe(1);
      expect(locked.stderr.trim().split("\n")).toHaveLength(1);
      expect(locked.stderr).toMatch(new RegExp(`^The embedded database .* is in use by process ${process.pid} \\(`));

      const misconfigured = await plainStart({ DATA_DIR: otherDir, AI_PROVIDER: "openai" });
      expect(misconfigured.code).toBe(1);
      expect(misconfigured.stderr.trim().split("\n")).toHaveLength(1);
      expect(misconfigured.stderr).toMatch(
        /^Invalid configuration: OPENAI_API_KEY is required when AI_PROVIDER=openai/,
      );
    } finally {
      release();
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
  }, 300_000);

  it("on SIGTERM: refuses new connections, finishes the requests and refreshes in flight, closes the database, exits 0", async () => {
    // Hold every page, so each refresh waits at the fixture site until the signal has been handled.
    for (const page of PAGES) site.setPage(page, { body: PRICE_PAGE("9.00"), delayMs: 1_500 });
    const before = new Map(PAGES.map((page) => [page, site.hits(page)]));
    const waiting = PAGES.slice(0, 4).map((page) => api("POST", `/trackers/${trackerIds.get(page)}/refresh`));
    // The fifth caller goes away mid-refresh: its refresh must still finish before the process exits.
    const leaving = new AbortController();
    const abandoned = api("POST", `/trackers/${trackerIds.get("/p5")}/refresh`, undefined, leaving.signal).catch(
      (error: unknown) => error,
    );
    // An open event stream never finishes by itself: the shutdown ends it rather than waiting for it.
    const stream = await openEventStream(app.url);
    await until(() => PAGES.every((page) => site.hits(page) > (before.get(page) ?? 0)), "every refresh to fetch", app);
    leaving.abort();
    expect(await abandoned).toBeInstanceOf(Error);

    app.proc.kill("SIGTERM");
    await app.waitFor(/SIGTERM: shutting down/, 30_000);
    const shutdownLine =
      app
        .output()
        .split("\n")
        .find((line) => line.includes("SIGTERM: shutting down")) ?? "";
    expect(shutdownLine).toMatch(/for [1-9]\d* requests? and [1-9]\d* background tasks? in flight/);

    // No longer accepting: a new connection is refused while the old ones finish.
    expect(await freshRequest(`${app.url}/api/health`)).toBe("ECONNREFUSED");

    for (const response of await Promise.all(waiting)) {
      expect(response.status).toBe(201);
      expect(response.body.run).toMatchObject({ status: "completed" });
    }
    await stream.ended;
    expect(await app.exited).toBe(0);
    expect(app.output()).toMatch(/database closed; bye/);
    expect(app.output()).not.toMatch(/grace period over/);

    // Closed cleanly: the shutdown checkpoint ran (no crash recovery on the next open), the lock is gone.
    const pgliteDir = embeddedDatabaseDir(dataDir);
    expect(readClusterState(pgliteDir)).toBe("shut down");
    expect(fs.existsSync(lockPathFor(pgliteDir))).toBe(false);

    const reopened = await createPgliteDb({ dataDir: pgliteDir });
    try {
      expect(reopened.migrations.appliedNow).toEqual([]);
      const runs = await reopened.db.refreshRun.findMany({ select: { trackerId: true, status: true } });
      for (const page of PAGES) {
        expect(runs.filter((r) => r.trackerId === trackerIds.get(page))).toEqual([
          { trackerId: trackerIds.get(page), status: "completed" },
        ]);
      }
    } finally {
      await reopened.close();
    }
  }, 120_000);

  it("cuts what outlasts SHUTDOWN_GRACE_MS, still closes the database cleanly, and exits 1", async () => {
    // The same data directory again: the app reopens what the previous shutdown closed.
    app = startApp({ ...env, SHUTDOWN_GRACE_MS: "500", FETCH_TIMEOUT_MS: "60000" });
    await app.waitFor(/\[bellwether\] ready in/, 300_000);
    site.setPage("/p1", { body: PRICE_PAGE("8.00"), delayMs: 600_000 }); // never answers in this test
    const hits = site.hits("/p1");
    const stuck = api("POST", `/trackers/${trackerIds.get("/p1")}/refresh`).catch((error: unknown) => error);
    await until(() => site.hits("/p1") > hits, "the refresh to fetch", app);

    app.proc.kill("SIGTERM");
    expect(await app.exited).toBe(1);
    expect(app.output()).toMatch(/grace period over: cutting 1 request and 1 background task \(refresh\)/);
    expect(await stuck).toBeInstanceOf(Error); // the connection was closed under it
    expect(app.output()).toMatch(/database closed; bye/);
    expect(readClusterState(embeddedDatabaseDir(dataDir))).toBe("shut down");
  }, 360_000);
  it("kill -9 during refreshes (embedded database): after a restart every tracker refreshes within 10 s", async () => {
    if (app.proc.exitCode === null && app.proc.signalCode === null) {
      app.proc.kill("SIGTERM"); // when run alone (-t), the first app is still up
      await app.exited;
    }
    await crashAndRecover({
      start: () => (app = startApp({ ...env, ...CRASH_TEST_LIMITS })),
      token,
      trackerIds,
      site,
    });
  }, 600_000);

  it.skipIf(!hasPostgres)(
    "kill -9 during refreshes (PostgreSQL): the same",
    async () => {
      const pg = await createPostgresTestDb();
      try {
        const pgEnv = {
          ...env,
          DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "bw-crash-pg-")),
          AUTH_SECRET: "crash-test-secret-0123456789abcdef0123",
          DATABASE_URL: pg.url,
        };
        const first = startApp({ ...pgEnv, PORT: String(await freePort()) });
        await first.waitFor(/\[bellwether\] ready in/, 300_000);
        const pgToken = (await createOwner(first, "owner@shutdown.test")).token;
        for (const page of PAGES) site.setPage(page, { body: PRICE_PAGE("10.00") });
        const ids = await createTrackers(first, pgToken, site);
        first.proc.kill("SIGTERM");
        expect(await first.exited).toBe(0);
        await crashAndRecover({
          start: () => startApp({ ...pgEnv, ...CRASH_TEST_LIMITS }),
          token: pgToken,
          trackerIds: ids,
          site,
        });
      } finally {
        await pg.drop();
      }
    },
    600_000,
  );
});

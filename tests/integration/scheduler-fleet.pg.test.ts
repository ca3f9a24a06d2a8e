import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import {
  callApi,
  callTrpc,
  createOwner,
  freePort,
  launcherEnv,
  priceTrackerRequest,
  root,
  spawnTracked,
  startApp,
  stopStartedProcesses,
  type TApp,
} from "../helpers/app-process";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { startWebhookReceiver } from "../helpers/notify-receivers";

/**
 * Scale-out on PostgreSQL (docs/scheduling.md): two app servers and a worker, each running its scheduler against one
 * database for several due times. Every due tracker is refreshed once per due time, every change is delivered once,
 * and the hourly jobs run once per hour across all three. The processes share one moved wall clock
 * (tests/bench/app-preload.mjs): each round moves it two hours on, so every hourly tracker is due again and an hour
 * has passed for the hourly jobs.
 */

const PAGES = ["/f1", "/f2", "/f3", "/f4", "/f5", "/f6"];
const ROUNDS = 3;
const PRICE = (price: string) => `<html><body><span id="price">$${price}</span></body></html>`;

let pg: TPostgresTestDb;
let site: TFixtureSite;
let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
let workDir: string;
let clockFile: string;
const fleet: TApp[] = [];

async function eventually(condition: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}:\n${fleet.map((p) => p.output().slice(-2000)).join("\n---\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.skipIf(!hasPostgres)("two app servers and a worker on one PostgreSQL", () => {
  beforeAll(async () => {
    [pg, site, hook] = await Promise.all([createPostgresTestDb(), startFixtureSite(), startWebhookReceiver()]);
    for (const page of PAGES) site.setPage(page, { body: PRICE("10.00") });
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-fleet-"));
    clockFile = path.join(workDir, "clock-offset-ms");
    fs.writeFileSync(clockFile, "0");
    const shared = {
      DATABASE_URL: pg.url,
      AUTH_SECRET: "fleet-test-secret-0123456789abcdef0123",
      FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port},${new URL(hook.url).host}`,
      // Short polls, so a round takes seconds: this test is about who does the work, not how soon.
      SCHEDULER_POLL_MS: "300",
      NODE_OPTIONS: `--import ${path.join(root, "tests/bench/app-preload.mjs")}`,
      BELLWETHER_BENCH_CLOCK_FILE: clockFile,
    };
    const apps = [startApp({ ...shared, PORT: String(await freePort()) })];
    // The second waits for the first's build (one build per checkout), then starts beside it.
    apps.push(startApp({ ...shared, PORT: String(await freePort()) }));
    for (const app of apps) await app.waitFor(/\[bellwether\] ready in/, 900_000);
    const worker = spawnTracked(["--import", "tsx", "scripts/worker.ts"], launcherEnv(shared), "");
    await worker.waitFor(/\[worker\] started/, 60_000);
    fleet.push(...apps, worker);
  }, 960_000);

  afterAll(async () => {
    for (const proc of fleet) if (proc.proc.exitCode === null) proc.proc.kill("SIGTERM");
    await Promise.all(fleet.map((proc) => proc.exited));
    await stopStartedProcesses();
    await Promise.all([site?.close(), hook?.close()]);
    await pg?.drop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it("refreshes each due tracker once per due time, delivers each change once, runs hourly jobs once an hour", async () => {
    const [first, second] = fleet as [TApp, TApp, TApp];
    const { cookie, token } = await createOwner(first);
    await callTrpc(first, cookie, "notification.createChannel", { kind: "webhook", target: `${hook.url}/fleet` });
    const ids: string[] = [];
    for (const page of PAGES) {
      // Half through each app: either instance's API writes the same database.
      const via = ids.length % 2 === 0 ? first : second;
      const created = await callApi(via, token, "POST", "/trackers", priceTrackerRequest(site.urlFor(page), page));
      expect(created.status).toBe(201);
      ids.push((created.body.tracker as { id: string }).id);
    }
    const runsPerTracker = async () =>
      Promise.all(ids.map((id) => pg.db.refreshRun.count({ where: { trackerId: id, status: "completed" } })));
    await eventually(async () => (await runsPerTracker()).every((n) => n === 1), "the baselines", 60_000);
    const jobRuns = async (name: string) => (await pg.db.schedulerJob.findUnique({ where: { name } }))?.runs ?? 0;
    await eventually(async () => (await jobRuns("retention")) === 1, "the first hourly retention", 30_000);

    for (let round = 1; round <= ROUNDS; round++) {
      for (const page of PAGES) site.setPage(page, { body: PRICE(round % 2 === 1 ? "8.00" : "10.00") });
      fs.writeFileSync(clockFile, String(round * 2 * 3_600_000));
      await eventually(
        async () => (await runsPerTracker()).every((n) => n === round + 1),
        `round ${round}'s refreshes`,
        60_000,
      );
      await eventually(
        async () => hook.received.filter((r) => r.path === "/hook/fleet").length === PAGES.length * round,
        `round ${round}'s deliveries`,
        30_000,
      );
      await eventually(async () => (await jobRuns("retention")) === round + 1, `round ${round}'s retention`, 30_000);
    }
    // Settle a few more passes of all three: nothing more is refreshed, sent or pruned.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    expect(await runsPerTracker()).toEqual(ids.map(() => ROUNDS + 1));
    expect(await pg.db.refreshRun.count({ where: { trackerId: { in: ids }, status: { not: "completed" } } })).toBe(0);
    const changes = await pg.db.entityChange.findMany({ where: { trackerId: { in: ids }, materiality: "material" } });
    expect(changes).toHaveLength(PAGES.length * ROUNDS);
    const delivered = hook.received
      .filter((r) => r.path === "/hook/fleet")
      .flatMap((r) => (JSON.parse(r.body) as { changes: { changeId: string }[] }).changes.map((c) => c.changeId));
    expect(delivered.sort()).toEqual(changes.map((c) => c.id).sort());
    expect(await jobRuns("retention")).toBe(ROUNDS + 1);
    expect(await jobRuns("stale-drafts")).toBe(ROUNDS + 1);
    // All three kept watch, each under its own heartbeat.
    const seen = await pg.db.schedulerInstance.findMany({ where: { stoppedAt: null } });
    expect(seen.map((s) => s.kind).sort()).toEqual(["app", "app", "worker"]);
  }, 300_000);
});

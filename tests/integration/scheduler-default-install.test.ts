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
  priceTrackerRequest,
  root,
  startApp,
  stopStartedProcesses,
  type TApp,
  until,
} from "../helpers/app-process";
import { changeIdsIn, isSignedBy, startWebhookReceiver } from "../helpers/notify-receivers";

/**
 * A fresh install as README.md's quick start makes it (`npm start`, the embedded database, no CRON_SECRET, no
 * scheduler setting), and nothing but the running server (docs/scheduling.md): a locked tracker is refreshed on its
 * schedule, the change lands in the timeline, and a local webhook receives exactly one signed delivery; "Refresh now"
 * is delivered within seconds. The app's wall clock is moved an hour and more on (tests/bench/app-preload.mjs) so
 * the hourly tracker is due again without waiting; the scheduler's own timers run at their default pace.
 */

let site: TFixtureSite;
let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
let dataDir: string;
let clockFile: string;
let app: TApp;
let token: string;
let trackerId: string;

const PRICE = (price: string) => `<html><body><h1>Pro plan</h1><span id="price">$${price}</span></body></html>`;
const moveClock = (hours: number) => fs.writeFileSync(clockFile, String(hours * 3_600_000));

/** Polls an async condition every 500 ms until it holds or `timeoutMs` passes; returns whether it held. */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return condition();
}

beforeAll(async () => {
  [site, hook] = await Promise.all([startFixtureSite(), startWebhookReceiver()]);
  site.setPage("/pro", { body: PRICE("10.00") });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-fresh-install-"));
  clockFile = path.join(dataDir, "clock-offset-ms");
  moveClock(0);
  app = startApp({
    DATA_DIR: path.join(dataDir, "data"),
    PORT: String(await freePort()),
    // The only setting: the fixture site and the receiver are local addresses, refused unless allowed.
    FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port},${new URL(hook.url).host}`,
    NODE_OPTIONS: `--import ${path.join(root, "tests/bench/app-preload.mjs")}`,
    BELLWETHER_BENCH_CLOCK_FILE: clockFile,
  });
  await app.waitFor(/\[bellwether\] ready in/, 900_000); // includes the build, shared with the other app tests
}, 960_000);

afterAll(async () => {
  if (app && app.proc.exitCode === null) {
    app.proc.kill("SIGTERM");
    await app.exited;
  }
  await stopStartedProcesses();
  await Promise.all([site?.close(), hook?.close()]);
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("a fresh install keeps watch on its own", () => {
  it("refreshes on schedule and delivers one signed webhook, with no cron and no setting", async () => {
    // Printed by the launcher just after "ready" (scripts/start-ready.mjs), possibly in a later chunk: wait for it.
    await app.waitFor(/scheduler on by default \(SCHEDULER=auto\)/, 10_000);
    // Nothing outside can drive it: the cron route has no secret to accept.
    expect((await fetch(`${app.url}/api/cron/refresh`)).status).toBe(503);

    const owner = await createOwner(app);
    token = owner.token;
    const { cookie } = owner;
    const { secret } = await callTrpc<{ secret: string }>(app, cookie, "notification.createChannel", {
      kind: "webhook",
      target: `${hook.url}/fresh`,
    });
    const created = await callApi(app, token, "POST", "/trackers", priceTrackerRequest(site.urlFor("/pro"), "Pro?"));
    expect(created.status).toBe(201);
    trackerId = (created.body.tracker as { id: string }).id;
    const id = trackerId;
    const runs = async () =>
      ((await callApi(app, token, "GET", `/trackers/${id}/runs`)).body.runs as { trigger: string; outcome: string }[])
        .map((r) => `${r.trigger}:${r.outcome}`)
        .reverse();

    // Locked → due at once: the server's scheduler records the baseline within a poll (15 s ± 20 %).
    expect(await eventually(async () => (await runs()).length > 0, 40_000)).toBe(true);
    expect(await runs()).toEqual(["scheduler:baseline"]);

    // The price drops; two hours later (an hourly schedule plus its jitter) the tracker is due and runs again.
    site.setPage("/pro", { body: PRICE("8.00") });
    moveClock(2);
    const fresh = () => hook.received.filter((r) => r.path === "/hook/fresh");
    await until(() => fresh().length > 0, "the webhook delivery", app, 60_000);
    expect(await runs()).toEqual(["scheduler:baseline", "scheduler:material"]);
    const timeline = await callApi(app, token, "GET", `/trackers/${id}/timeline`);
    const material = (timeline.body.items as { id: string; materiality: string }[]).filter(
      (e) => e.materiality === "material",
    );
    expect(material).toHaveLength(1);
    const [delivery] = fresh();
    expect(delivery && isSignedBy(secret, delivery)).toBe(true);
    expect(delivery && changeIdsIn(delivery)).toEqual([material[0]?.id]);

    // Later passes send nothing twice.
    const health = async () =>
      (await (await fetch(`${app.url}/api/health`)).json()) as {
        ok: boolean;
        scheduler: { running: boolean; lastPassAt: string | null; lagSeconds: number | null };
      };
    const passAt = (await health()).scheduler.lastPassAt;
    expect(await eventually(async () => (await health()).scheduler.lastPassAt !== passAt, 30_000)).toBe(true);
    expect(fresh()).toHaveLength(1);
    expect(await health()).toMatchObject({ ok: true, scheduler: { running: true, lagSeconds: 0 } });
  }, 180_000);

  it("delivers a change made with Refresh now within seconds, not at the next pass", async () => {
    const id = trackerId;
    site.setPage("/pro", { body: PRICE("6.00") });
    const before = hook.received.filter((r) => r.path === "/hook/fresh").length;
    const refreshed = await callApi(app, token, "POST", `/trackers/${id}/refresh`);
    expect((refreshed.body.run as { outcome: string }).outcome).toBe("material");
    const recordedAt = Date.now();
    await until(
      () => hook.received.filter((r) => r.path === "/hook/fresh").length > before,
      "the Refresh now delivery",
      app,
      5_000,
    );
    expect(Date.now() - recordedAt).toBeLessThan(5_000);
  }, 60_000);

  it("stops cleanly on SIGTERM with its scheduler running", async () => {
    app.proc.kill("SIGTERM");
    expect(await app.exited).toBe(0);
    expect(app.output()).toMatch(/database closed; bye/);
  }, 60_000);
});

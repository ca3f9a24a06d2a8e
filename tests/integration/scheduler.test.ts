import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { settleDeferred } from "@/server/defer";
import { resetEnvForTests } from "@/server/env";
import {
  CLAIM_BATCH,
  createChannel,
  kickNotifications,
  notifyConfigFromEnv,
  runNotifications,
} from "@/server/notifications";
import { getSchedulerDetails } from "@/server/system/get-scheduler-details";
import { getTrackerOverview } from "@/server/trackers";
import {
  createHeartbeat,
  createStaleDraftsJob,
  getSchedulerReport,
  isStalled,
  listSchedulers,
  refreshTrackerNow,
  runDueRefreshes,
  runScheduler,
} from "@/server/triggers";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { countSql } from "../bench/sql-counter";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { changeIdsIn, isSignedBy, startWebhookReceiver } from "../helpers/notify-receivers";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig } from "../helpers/trackers";

/**
 * The scheduler inside the server (docs/scheduling.md) on the embedded database with a real fixture site and a real
 * webhook receiver: it refreshes what is due and the change reaches the webhook once, with nothing else running; a
 * change made with "Refresh now" is sent at once, not at a pass; a backlog larger than one batch drains in one wake;
 * the hourly jobs run once per hour however many schedulers call them.
 */

let t: TTestDb;
let site: TFixtureSite;
let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
let userId: string;

const rulesMode = () => ({
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
});
const page = (price: string) => `<main><span id="price">$${price}</span></main>`;

beforeAll(async () => {
  [t, site, hook] = await Promise.all([createTestDb(), startFixtureSite(), startWebhookReceiver()]);
  // The sender reads its configuration from the environment, as in the server: the receiver is a local address.
  process.env.FETCH_ALLOW_HOSTS = `${new URL(hook.url).host},${new URL(site.url).host}`;
  resetEnvForTests();
  userId = (await ensureLocalUser(t.db)).id;
});
afterAll(async () => {
  delete process.env.FETCH_ALLOW_HOSTS;
  resetEnvForTests();
  await Promise.all([hook?.close(), site?.close(), t?.close()]);
});

let seq = 0;
async function tracker(price: string) {
  const path = `/sched-${++seq}`;
  site.setPage(path, { body: page(price) });
  const { tracker } = await createActiveTracker(t.db, {
    userId,
    decision: `Is plan ${seq} getting cheaper?`,
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition: cssPriceDefinition(0.05),
  });
  return { id: tracker.id, path };
}

async function webhook(path: string): Promise<{ secret: string }> {
  const created = await createChannel(t.db, {
    userId,
    config: notifyConfigFromEnv(),
    channel: { kind: "webhook", target: `${hook.url}${path}` },
  });
  return { secret: created.secret as string };
}

const deliveredTo = (path: string) => hook.received.filter((r) => r.path === `/hook${path}`);

describe("the scheduler", () => {
  it("refreshes a due tracker and its change reaches a signed webhook exactly once, with nothing else running", async () => {
    const { secret } = await webhook("/scheduled");
    const watched = await tracker("10.00");
    let clock = Date.now();
    const now = () => new Date(clock);
    const stop = new AbortController();
    const passes: number[] = [];
    const running = runScheduler(t.db, {
      kind: "app",
      concurrency: 2,
      budgetMs: 20_000,
      pollMs: 50,
      signal: stop.signal,
      now,
      refreshOptions: { ...rulesMode(), now },
      onPass: (summary) => passes.push(summary.claimed),
    });
    try {
      // Locked → due at once: the scheduler records the baseline by itself.
      await vi.waitFor(
        async () =>
          expect((await t.db.tracker.findUniqueOrThrow({ where: { id: watched.id } })).lastRunAt).not.toBeNull(),
        { timeout: 10_000 },
      );
      const seen = await listSchedulers(t.db, { now: now() });
      expect(seen.filter((s) => s.alive).map((s) => s.kind)).toEqual(["app"]);

      // The page moves; once its hourly schedule (plus up to 10% jitter) has passed, the tracker is due again and
      // the change is recorded and sent.
      site.setPage(watched.path, { body: page("8.00") });
      clock += 2 * 60 * 60_000;
      await vi.waitFor(() => expect(deliveredTo("/scheduled")).toHaveLength(1), { timeout: 10_000 });
      const change = await t.db.entityChange.findFirstOrThrow({
        where: { trackerId: watched.id, materiality: "material" },
      });
      const [delivery] = deliveredTo("/scheduled");
      expect(delivery && isSignedBy(secret, delivery)).toBe(true);
      expect(delivery && changeIdsIn(delivery)).toEqual([change.id]);
      const runs = await t.db.refreshRun.findMany({ where: { trackerId: watched.id }, orderBy: { createdAt: "asc" } });
      expect(runs.map((r) => [r.trigger, r.outcome])).toEqual([
        ["scheduler", "baseline"],
        ["scheduler", "material"],
      ]);
      // More passes (and the maintenance after each) send nothing twice.
      const after = passes.length;
      await vi.waitFor(() => expect(passes.length).toBeGreaterThan(after + 3));
      expect(deliveredTo("/scheduled")).toHaveLength(1);
    } finally {
      stop.abort();
    }
    const result = await running;
    expect(result.refreshed).toBe(2);
    // A clean stop is recorded: the tracker page does not count a stopped scheduler as keeping watch.
    const [row] = await listSchedulers(t.db, { now: now() });
    expect(row).toMatchObject({ kind: "app", alive: false });
    expect(row?.stoppedAt).not.toBeNull();
  });

  it("a change made with Refresh now is sent within seconds, without any scheduler pass", async () => {
    await webhook("/now");
    const watched = await tracker("20.00");
    const refresh = () => refreshTrackerNow(t.db, { userId, trackerId: watched.id, trigger: "manual" }, rulesMode());
    expect((await refresh()).outcome).toBe("baseline");
    site.setPage(watched.path, { body: page("15.00") });
    const recordedAt = Date.now();
    expect((await refresh()).outcome).toBe("material");
    // No scheduler, no cron call: only the sender the change woke.
    await vi.waitFor(() => expect(deliveredTo("/now")).toHaveLength(1), { timeout: 5_000 });
    expect(Date.now() - recordedAt).toBeLessThan(5_000);
    await settleDeferred();
    expect(deliveredTo("/now")).toHaveLength(1);
  });

  it("a backlog over one batch (20 changes × 4 channels) drains in one wake, each delivery once", async () => {
    const paths = ["/a", "/b", "/c", "/d"];
    for (const path of paths) await webhook(`/backlog${path}`);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await tracker("30.00")).id);
    const pass = () =>
      runDueRefreshes(t.db, { trigger: "worker", concurrency: 4, budgetMs: 30_000, refreshOptions: rulesMode() });
    await pass(); // baselines: nothing to send
    for (let i = 1; i <= 20; i++) site.setPage(`/sched-${seq - 20 + i}`, { body: page("20.00") });
    await t.db.tracker.updateMany({ where: { id: { in: ids } }, data: { nextRunAt: new Date() } });
    expect((await pass()).outcomes).toMatchObject({ material: 20 });
    const before = hook.received.length;
    // The channels of the earlier tests get these changes too; the four new ones get 20 each.
    await kickNotifications(t.db);
    const received = hook.received.slice(before);
    expect(received.length).toBeGreaterThan(CLAIM_BATCH);
    for (const path of paths) {
      const changeIds = deliveredTo(`/backlog${path}`).flatMap(changeIdsIn);
      expect(changeIds).toHaveLength(20);
      expect(new Set(changeIds).size).toBe(20);
    }
    const channels = await t.db.notificationChannel.findMany({ where: { target: { contains: "/backlog/" } } });
    expect(
      await t.db.notificationDelivery.count({
        where: { status: "pending", channelId: { in: channels.map((c) => c.id) } },
      }),
    ).toBe(0);
  });

  it("hourly jobs run once per hour however many schedulers call them", async () => {
    // Three processes' jobs (each with its own in-process throttle) on one database.
    const jobs = [1, 2, 3].map(() => createStaleDraftsJob({ shared: true }));
    const t0 = Date.now() + 24 * 3_600_000; // after anything this file's real clock recorded
    const plus = (minutes: number) => ({ now: new Date(t0 + minutes * 60_000) });
    const runsBefore = (await t.db.schedulerJob.findUnique({ where: { name: "stale-drafts" } }))?.runs ?? 0;
    const ran = async (minutes: number) =>
      (await Promise.all(jobs.map((job) => job.maybeRun(t.db, plus(minutes))))).filter((r) => r !== null).length;
    expect(await ran(0)).toBe(1);
    expect(await ran(1)).toBe(0);
    expect(await ran(59)).toBe(0);
    expect(await ran(61)).toBe(1);
    expect(await ran(62)).toBe(0);
    expect(await ran(122)).toBe(1);
    expect((await t.db.schedulerJob.findUniqueOrThrow({ where: { name: "stale-drafts" } })).runs).toBe(runsBefore + 3);
  });

  it("says when nothing keeps watch: overdue trackers, the lag, and who was seen (System page, tracker page)", async () => {
    const late = await tracker("40.00");
    const now = new Date();
    // Three hours past its next run on an hourly schedule: more than two intervals late.
    await t.db.tracker.update({ where: { id: late.id }, data: { nextRunAt: new Date(now.getTime() - 3 * 3_600_000) } });
    const report = await getSchedulerReport(t.db, { now });
    expect(report.keepingWatch).toBe(false); // the first test's scheduler stopped cleanly
    expect(report.trackers.overdue).toBeGreaterThanOrEqual(1);
    expect(report.trackers.lagMs).toBeGreaterThanOrEqual(3 * 3_600_000);
    expect(report.thisServer).toMatchObject({ running: false, stalled: false });
    const overview = await getTrackerOverview(t.db, { userId, trackerId: late.id });
    expect(overview.tracker.overdue).toBe(true);
    expect(overview.keepingWatch).toBe(false);

    // A worker starts elsewhere: now something keeps watch (its heartbeat row).
    const beat = createHeartbeat(t.db, { id: "worker-elsewhere", kind: "worker", pollMs: 15_000 });
    await beat.start();
    expect((await getTrackerOverview(t.db, { userId, trackerId: late.id })).keepingWatch).toBe(true);
    expect((await getSchedulerReport(t.db)).schedulers.find((s) => s.id === "worker-elsewhere")?.alive).toBe(true);
    // Where it runs and the counts over everyone's trackers are the owner's to see.
    const owner = await getSchedulerDetails(t.db, { viewer: { role: "owner" } });
    expect(owner.schedulers.find((s) => s.id === "worker-elsewhere")?.pid).toBe(process.pid);
    expect(owner.trackers?.overdue).toBeGreaterThanOrEqual(1);
    const member = await getSchedulerDetails(t.db, { viewer: { role: "member" } });
    expect(member.schedulers.find((s) => s.id === "worker-elsewhere")).toMatchObject({ alive: true, host: "", pid: 0 });
    expect(member).toMatchObject({ trackers: null, deliveries: null, keepingWatch: true });
    await beat.stop();
    expect((await getTrackerOverview(t.db, { userId, trackerId: late.id })).keepingWatch).toBe(false);
    await t.db.tracker.update({ where: { id: late.id }, data: { status: "paused" } });
  });

  it("an idle pass of the sender looks once and sends nothing: two statements, no transaction", async () => {
    await kickNotifications(t.db); // whatever the earlier tests left
    const statements: string[] = [];
    const sql = countSql(t.pglite, { onStatement: (text) => statements.push(text) });
    try {
      const pass = await runNotifications(t.db);
      expect(pass).toMatchObject({ fannedOut: 0, failingNotices: 0, delivery: { claimed: 0 } });
    } finally {
      sql.restore();
    }
    // The look (outbox or due deliveries?) and the failing-trackers scan; no outbox transaction, no claim.
    expect(statements).toHaveLength(2);
    expect(sql.transactions).toBe(0);
  });

  it("counts as stuck only when its loop has not come round for longer than a pass can take", () => {
    const lastLoopAt = new Date("2026-12-01T00:00:00Z");
    const status = { lastLoopAt, budgetMs: 45_000, pollMs: 15_000 };
    const later = (ms: number) => new Date(lastLoopAt.getTime() + ms);
    expect(isStalled(status, later(60_000))).toBe(false);
    expect(isStalled(status, later(6 * 60_000))).toBe(false);
    expect(isStalled(status, later(10 * 60_000))).toBe(true);
  });
});

import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TDb } from "@/server/db";
import { createChannel, fanOutChanges, runNotifications, type TNotifyConfig } from "@/server/notifications";
import { appendChange, ensureEntity } from "@/server/timeline";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { localNotifyConfig, startWebhookReceiver } from "../helpers/notify-receivers";

/**
 * "Delivery loses nothing and sends nothing twice" (docs/notifications.md), on real PostgreSQL: several workers at once make
 * exactly one delivery per (change, channel), and a worker killed mid-delivery leaves its delivery to be sent once
 * after the lease it held runs out.
 */

let seq = 0;
async function materialChanges(db: TDb, userId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const tracker = await db.tracker.create({
      data: { userId, decision: `D${++seq}`, capability: "web.scrape", capabilityInput: { url: "https://e.com" } },
    });
    const entity = await ensureEntity(db, { trackerId: tracker.id, entityKey: "k" });
    const run = await db.refreshRun.create({ data: { trackerId: tracker.id, trigger: "manual" } });
    const change = await db.$transaction((tx) =>
      appendChange(tx, {
        entityId: entity.id,
        trackerId: tracker.id,
        runId: run.id,
        capturedAt: new Date(),
        delta: { price: { from: 10, to: 8 } },
        materiality: "material",
        decisions: { price: { verdict: "material", decidedBy: "code", reason: "moved 20%" } },
        definitionVersion: 1,
      }),
    );
    ids.push(change.id);
  }
  return ids;
}

describe.skipIf(!hasPostgres)("notifications on PostgreSQL", () => {
  let pg: TPostgresTestDb;
  let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let config: TNotifyConfig;
  beforeAll(async () => {
    pg = await createPostgresTestDb();
    hook = await startWebhookReceiver();
    config = localNotifyConfig(hook.url, { pauseAfterFailures: 5 });
  });
  afterAll(async () => {
    await hook?.close();
    await pg?.drop();
  });

  it("four workers at once: exactly one delivery per (change, channel)", async () => {
    const user = await pg.db.user.create({ data: { name: "Ann", email: "ann@example.com" } });
    await createChannel(pg.db, { userId: user.id, config, channel: { kind: "webhook", target: `${hook.url}/a` } });
    await createChannel(pg.db, { userId: user.id, config, channel: { kind: "discord", target: `${hook.url}/b` } });
    const changes = await materialChanges(pg.db, user.id, 12);
    const now = new Date();
    await Promise.all(Array.from({ length: 4 }, () => fanOutChanges(pg.db, { config, now })));
    await Promise.all(Array.from({ length: 4 }, () => runNotifications(pg.db, { config, now })));
    await Promise.all(Array.from({ length: 4 }, () => runNotifications(pg.db, { config, now })));

    expect(await pg.db.notificationDelivery.count({ where: { userId: user.id } })).toBe(24);
    expect(await pg.db.notificationDelivery.count({ where: { userId: user.id, status: "sent" } })).toBe(24);
    const mine = hook.received.filter((r) => r.path === "/hook/a" || r.path === "/hook/b");
    expect(mine).toHaveLength(24);
    expect(new Set(mine.map((r) => r.headers["x-bellwether-delivery"])).size).toBe(24);
    const announced = hook.received
      .filter((r) => r.path === "/hook/a")
      .map((r) => JSON.parse(r.body).changes[0].changeId as string);
    expect(announced.sort()).toEqual([...changes].sort());
    // Discord's format: {content, allowed_mentions}.
    const discord = JSON.parse(hook.received.find((r) => r.path === "/hook/b")?.body ?? "{}");
    expect(discord.content).toContain("D");
    expect(await pg.db.changeOutbox.count()).toBe(0);
  }, 60_000);

  it("a worker killed mid-delivery: after its lease runs out the change is delivered exactly once", async () => {
    const user = await pg.db.user.create({ data: { name: "Bo", email: "bo@example.com" } });
    await createChannel(pg.db, { userId: user.id, config, channel: { kind: "webhook", target: `${hook.url}/crash` } });
    const [changeId] = await materialChanges(pg.db, user.id, 1);
    const isCrash = (path: string) => path === "/hook/crash";
    const start = hook.received.length;
    hook.answer((n) => (n === start ? "hang" : 200)); // the worker's request never gets an answer

    const child = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
      cwd: process.cwd(),
      env: {
        ...process.env,
        LOG_LEVEL: "silent",
        DATABASE_URL: pg.url,
        WORKER_POLL_MS: "200",
        FETCH_ALLOW_HOSTS: new URL(hook.url).host,
      },
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      for (let i = 0; i < 600 && !hook.received.slice(start).some((r) => isCrash(r.path)); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(hook.received.slice(start).filter((r) => isCrash(r.path))).toHaveLength(1);
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
    const claimed = await pg.db.notificationDelivery.findFirstOrThrow({ where: { changeId } });
    expect(claimed).toMatchObject({ status: "pending", attempts: 1 });
    expect(claimed.leaseExpiresAt).not.toBeNull();

    // While the dead worker's lease holds, nobody sends it again; once it has run out, one pass sends it once.
    await runNotifications(pg.db, { config, now: new Date() });
    expect(hook.received.slice(start).filter((r) => isCrash(r.path))).toHaveLength(1);
    const later = new Date((claimed.leaseExpiresAt?.getTime() ?? 0) + 1000);
    await Promise.all([
      runNotifications(pg.db, { config, now: later }),
      runNotifications(pg.db, { config, now: later }),
    ]);
    await runNotifications(pg.db, { config, now: new Date(later.getTime() + 3_600_000) });

    const attempts = hook.received.slice(start).filter((r) => isCrash(r.path));
    expect(attempts.map((r) => r.status)).toEqual([0, 200]); // the hung one, then exactly one accepted
    expect(new Set(attempts.map((r) => r.headers["x-bellwether-delivery"])).size).toBe(1); // same id: dedupable
    const done = await pg.db.notificationDelivery.findUniqueOrThrow({ where: { id: claimed.id } });
    expect(done).toMatchObject({ status: "sent", attempts: 2 });
  }, 90_000);
});

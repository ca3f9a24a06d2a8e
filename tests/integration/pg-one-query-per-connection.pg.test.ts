import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createChannel,
  fanOutChanges,
  noticeFailingTrackers,
  runNotifications,
  type TNotifyConfig,
} from "@/server/notifications";
import { appendChange, ensureEntity } from "@/server/timeline";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { localNotifyConfig, startWebhookReceiver } from "../helpers/notify-receivers";

/**
 * A transaction is one connection, and a connection answers one query at a time: node-postgres queues a second
 * query sent while one runs and warns ("Calling client.query() when the client is already executing a query",
 * removed in pg@9). The notification path after a material change — fan-out, the failing-tracker notice, delivery —
 * sends its queries one after another, so a PostgreSQL server's log stays clean.
 */
const CONCURRENT_QUERY = /already executing a query/;
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);

describe.skipIf(!hasPostgres)("one query at a time on a transaction's connection (PostgreSQL)", () => {
  let pg: TPostgresTestDb;
  let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let config: TNotifyConfig;
  beforeAll(async () => {
    process.on("warning", onWarning);
    pg = await createPostgresTestDb();
    hook = await startWebhookReceiver();
    config = localNotifyConfig(hook.url, { pauseAfterFailures: 5 });
  });
  afterAll(async () => {
    process.off("warning", onWarning);
    await hook?.close();
    await pg?.drop();
  });

  it("a material change fans out, a failing tracker is told, and node-postgres warns of nothing", async () => {
    const user = await pg.db.user.create({ data: { name: "Cy", email: "cy@example.com" } });
    await createChannel(pg.db, { userId: user.id, config, channel: { kind: "webhook", target: `${hook.url}/c` } });
    const tracker = await pg.db.tracker.create({
      data: { userId: user.id, decision: "Price", capability: "web.scrape", capabilityInput: { url: "https://e.com" } },
    });
    const entity = await ensureEntity(pg.db, { trackerId: tracker.id, entityKey: "k" });
    const run = await pg.db.refreshRun.create({ data: { trackerId: tracker.id, trigger: "manual" } });
    await pg.db.$transaction((tx) =>
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
    const now = new Date();
    expect(await fanOutChanges(pg.db, { config, now })).toBeGreaterThan(0);
    await pg.db.tracker.update({
      where: { id: tracker.id },
      data: { status: "active", consecutiveFailures: config.failingAfter, lastError: "HTTP 500" },
    });
    expect(await noticeFailingTrackers(pg.db, { config, now })).toBe(1);
    await runNotifications(pg.db, { config, now });
    expect(hook.received.filter((r) => r.path === "/hook/c").length).toBeGreaterThanOrEqual(2);
    expect(warnings.filter((w) => CONCURRENT_QUERY.test(w))).toEqual([]);
  }, 60_000);
});

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/server/env";
import { EVENTS_CHANNEL, publish } from "@/server/events";
import { feedEvents } from "@/server/feed/feed-events";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";

/** Events (and so feed updates) cross app instances through PostgreSQL LISTEN/NOTIFY. "Another instance" is a plain pg client. */
describe.skipIf(!hasPostgres)("feed events over LISTEN/NOTIFY", () => {
  let t: TPostgresTestDb;
  let other: pg.Client;
  const previous = process.env.DATABASE_URL;

  beforeAll(async () => {
    t = await createPostgresTestDb();
    process.env.DATABASE_URL = t.url;
    resetEnvForTests();
    other = new pg.Client({ connectionString: t.url });
    await other.connect();
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previous;
    resetEnvForTests();
    await other?.end();
    await t?.drop();
  });

  it("an event NOTIFYed by another instance reaches this instance's subscribers", async () => {
    const controller = new AbortController();
    const events = feedEvents("pg-user", { signal: controller.signal });
    const first = events.next();
    // The LISTEN connection opens in the background; keep notifying until it hears one.
    let got: IteratorResult<unknown> | undefined;
    const timer = setInterval(() => {
      void other.query("SELECT pg_notify($1, $2)", [
        EVENTS_CHANNEL,
        JSON.stringify({
          id: "99",
          topic: "feed.changed",
          data: { userId: "pg-user", reason: "enhanced" },
          from: "another-instance",
        }),
      ]);
    }, 100);
    try {
      got = await first;
    } finally {
      clearInterval(timer);
      controller.abort();
    }
    expect(got?.value).toEqual({ id: "99", userId: "pg-user", reason: "enhanced" });
  });

  it("publish sends the event on the channel for other instances", async () => {
    await other.query(`LISTEN ${EVENTS_CHANNEL}`);
    const heard = new Promise<string>((resolve) => other.once("notification", (m) => resolve(m.payload ?? "")));
    await publish(t.db, "tracker.changed", { userId: "pg-user-2", trackerId: "t1", materiality: "material" });
    const payload = JSON.parse(await heard) as { topic: string; data: { userId: string }; from: string };
    expect(payload).toMatchObject({ topic: "tracker.changed", data: { userId: "pg-user-2", trackerId: "t1" } });
    expect(payload.from).toMatch(/^[0-9a-f-]{36}$/);
  });
});

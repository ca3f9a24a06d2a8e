import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createCaller } from "@/server/api/root";
import type { TSessionUser } from "@/server/api/session-user";
import { resetEnvForTests } from "@/server/env";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { countSql } from "../bench/sql-counter";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * tracker.events — what an open tracker page listens to — end to end on PGlite: owner-checked, one tracker's
 * events only, a `checked` after every run that ended (unchanged, noise, material, failed) and a `changed` for a
 * recorded change or a status move, resumable by event id; the unchanged refresh still sends 2 statements.
 */
const page = (price: string) => `<main><p>Price <span id="price">${price}</span></p></main>`;
const definition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

let t: TTestDb;
let site: TFixtureSite;
let me: TSessionUser;
let stranger: TSessionUser;

const caller = (user: TSessionUser) => createCaller(testTrpcContext(t.db, user));
const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
});

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  vi.stubEnv("AI_PROVIDER", "rules");
  vi.stubEnv("DATABASE_URL", "");
  resetEnvForTests();
  me = await ensureLocalUser(t.db);
  stranger = (await t.db.user.create({ data: { name: "Other" } })) as TSessionUser;
});
afterAll(async () => {
  vi.unstubAllEnvs();
  resetEnvForTests();
  await site?.close();
  await t?.close();
});

async function trackerAt(path: string, price: string): Promise<string> {
  site.setPage(path, { body: page(price) });
  const { tracker } = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition,
    userId: me.id,
  });
  return tracker.id;
}

type TEnvelope = [string, { kind: string; runId?: string; outcome?: string; materiality?: string | null }, symbol];

/** The subscription as the page opens it; `next()` is the next event as {id, kind, …}. */
async function listen(user: TSessionUser, trackerId: string, lastEventId?: string) {
  const iterable = await caller(user).tracker.events({ trackerId, ...(lastEventId ? { lastEventId } : {}) });
  const iterator = (iterable as AsyncIterable<TEnvelope>)[Symbol.asyncIterator]();
  return {
    async next() {
      const { value, done } = await iterator.next();
      if (done) throw new Error("the subscription ended");
      return { id: value[0], ...value[1] };
    },
    close: () => iterator.return?.(undefined),
  };
}

describe("tracker.events", () => {
  it("is owner-checked: another person's or an unknown tracker is NOT_FOUND", async () => {
    const trackerId = await trackerAt("/ev-owner", "10");
    const theirs = await listen(stranger, trackerId);
    await expect(theirs.next()).rejects.toMatchObject({ code: "NOT_FOUND" });
    const unknown = await listen(me, "no-such-tracker");
    await expect(unknown.next()).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("hears every run of its tracker end — baseline, unchanged, noise, material, failed — and status moves", async () => {
    const trackerId = await trackerAt("/ev-a", "100");
    const otherId = await trackerAt("/ev-b", "5");
    const events = await listen(me, trackerId);
    try {
      expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("baseline");
      const baseline = await events.next();
      expect(baseline).toMatchObject({ kind: "checked", outcome: "baseline" });

      // Unchanged: the event costs no statement (in process on PGlite); the floor stays one read + one write.
      const counter = countSql(t.pglite);
      let unchangedStatements: number;
      try {
        expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("unchanged");
        unchangedStatements = counter.statements;
      } finally {
        counter.restore();
      }
      expect(unchangedStatements).toBeLessThanOrEqual(2);
      expect(await events.next()).toMatchObject({ kind: "checked", outcome: "unchanged" });

      // Another tracker's runs are not this page's news: the next event is this tracker's noise.
      expect((await refreshTracker(t.db, otherId, options())).outcome).toBe("baseline");
      site.setPage("/ev-a", { body: page("102") });
      expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("noise");
      expect(await events.next()).toMatchObject({ kind: "checked", outcome: "noise" });

      // Material: the run ended, and a change was recorded.
      site.setPage("/ev-a", { body: page("80") });
      expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("material");
      expect(await events.next()).toMatchObject({ kind: "checked", outcome: "material" });
      expect(await events.next()).toMatchObject({ kind: "changed", materiality: "material" });

      // A failed run moves "last checked" and the failure count too.
      site.setPage("/ev-a", { status: 500, body: "Internal Server Error" });
      expect((await refreshTracker(t.db, trackerId, options())).status).toBe("failed");
      const failed = await events.next();
      expect(failed).toMatchObject({ kind: "checked", outcome: "failed" });

      // Paused from anywhere (here the router another tab would call): the page hears it.
      await caller(me).tracker.setStatus({ trackerId, status: "paused" });
      const paused = await events.next();
      expect(paused).toMatchObject({ kind: "changed", materiality: null });
      expect(Number(paused.id)).toBeGreaterThan(Number(failed.id));

      // A page that reconnects with the id of its first event gets the newest of each kind it missed, in order.
      const resumed = await listen(me, trackerId, baseline.id);
      try {
        expect(await resumed.next()).toMatchObject({ id: failed.id, kind: "checked", outcome: "failed" });
        expect(await resumed.next()).toMatchObject({ id: paused.id, kind: "changed", materiality: null });
      } finally {
        await resumed.close();
      }
    } finally {
      await events.close();
    }
  });

  it("a `checked` event names its run, as that run's own answer does (a page's Refresh now tells its run from a later one)", async () => {
    const trackerId = await trackerAt("/ev-run", "40");
    const events = await listen(me, trackerId);
    try {
      const first = await refreshTracker(t.db, trackerId, options());
      expect(await events.next()).toMatchObject({ kind: "checked", runId: first.runId, outcome: "baseline" });
      const second = await refreshTracker(t.db, trackerId, options());
      expect(second.runId).not.toBe(first.runId);
      expect(await events.next()).toMatchObject({ kind: "checked", runId: second.runId, outcome: "unchanged" });
      // A failed run too: its record is the one the runs log shows.
      site.setPage("/ev-run", { status: 500, body: "Internal Server Error" });
      const failed = await refreshTracker(t.db, trackerId, options());
      expect(failed.status).toBe("failed");
      expect(await events.next()).toMatchObject({ kind: "checked", runId: failed.runId, outcome: "failed" });
    } finally {
      await events.close();
    }
  });

  it("a page subscribing just after its data was read replays what landed in between (its time as the id)", async () => {
    const trackerId = await trackerAt("/ev-late", "7");
    const readAt = String(Date.now() - 1);
    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("baseline");
    const late = await listen(me, trackerId, readAt);
    try {
      expect(await late.next()).toMatchObject({ kind: "checked", outcome: "baseline" });
    } finally {
      await late.close();
    }
  });
});

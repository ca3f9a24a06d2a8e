import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { TFeedItem } from "@/contracts/feed-item";
import { settleDeferred } from "@/server/defer";
import { requestEnhancement } from "@/server/enhancement/enhancement-manager";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { createTestDb, type TTestDb } from "../helpers/db";
import { fixtureModel } from "../helpers/trackers";

/**
 * Follow-up enhancement calls (docs/feed.md, Enhancement), asserted on what the fixture model server received: each
 * call carries the time when it is made, not the first call's; and input that arrives during the last follow-up a
 * holder may make still runs after it, without waiting for another feed load.
 */

const NOW = new Date("2026-12-06T08:00:00Z");
const LATENCY_MS = 1_200; // long enough for the next input to arrive while a call is in flight on a loaded machine
let t: TTestDb;
let model: TModelServer;
let userId: string;

const items: TFeedItem[] = [
  {
    id: "event:standup",
    sourceId: "calendar",
    type: "calendar-event",
    timestamp: NOW,
    data: { title: "Stand-up", start: "2026-12-06T09:30:00.000Z" },
    slots: { logistics: { description: "When to leave", content: null } },
  },
];

const calls = () => model.requests.filter((r) => r.summary.schemaName === "feed_enhancement");
const timeOf = (prompt: string) => new Date(/Current time: (\S+)/.exec(prompt)?.[1] ?? "invalid").getTime();
const ask = (memory: string, opts: { clock?: () => Date } = {}) =>
  requestEnhancement(t.db, userId, items, memory, {
    now: NOW,
    model: fixtureModel(model.url),
    lastActiveAt: NOW,
    ...opts,
  });

beforeAll(async () => {
  [t, model] = await Promise.all([createTestDb(), startModelServer()]);
  userId = (await ensureLocalUser(t.db)).id;
  model.setRecordings([
    {
      name: "slow",
      match: { schemaName: "feed_enhancement" },
      response: {
        latencyMs: LATENCY_MS,
        json: {
          slotFills: [{ itemId: "event:standup", slot: "logistics", text: "Leave by 9:10." }],
          syntheticItems: [],
          suppress: [],
          rankingHints: [],
        },
      },
    },
  ]);
});

afterAll(async () => {
  await settleDeferred();
  await Promise.all([t?.close(), model?.close()]);
});

describe("each call carries its own time", () => {
  it("a follow-up after a slow call is written at its own time, not the first call's", async () => {
    const before = calls().length;
    const holder = ask("first");
    await vi.waitFor(() => expect(calls()).toHaveLength(before + 1), { timeout: 10_000 });
    expect(await ask("changed while the first call ran")).toBe("in_flight");
    expect(await holder).toBe("enhanced");

    const [first, followUp] = calls().slice(before);
    expect(first?.summary.lastUser).toContain("first");
    expect(followUp?.summary.lastUser).toContain("changed while the first call ran");
    const firstAt = timeOf(first?.summary.lastUser ?? "");
    const followUpAt = timeOf(followUp?.summary.lastUser ?? "");
    // The request's `now` moves on with the process's clock: the follow-up is made after the first call's answer.
    expect(firstAt).toBeGreaterThanOrEqual(NOW.getTime());
    expect(followUpAt - firstAt).toBeGreaterThanOrEqual(LATENCY_MS);
  });

  it("an injected clock is read once per call", async () => {
    const before = calls().length;
    let tick = 0;
    const clock = () => new Date(NOW.getTime() + 60_000 * ++tick);
    const holder = ask("clock A", { clock });
    await vi.waitFor(() => expect(calls()).toHaveLength(before + 1), { timeout: 10_000 });
    expect(await ask("clock B", { clock })).toBe("in_flight");
    expect(await holder).toBe("enhanced");
    const sent = calls()
      .slice(before)
      .map((r) => new Date(timeOf(r.summary.lastUser)).toISOString());
    // The first call read the clock once (one minute on); the follow-up read it again when it was made.
    expect(sent[0]).toBe("2026-12-06T08:01:00.000Z");
    expect(new Date(sent[1] ?? 0).getTime()).toBeGreaterThan(new Date(sent[0] ?? 0).getTime());
  });
});

describe("input left after the follow-up cap", () => {
  it("runs after the holder's last follow-up, not at the next feed load", async () => {
    const before = calls().length;
    const holder = ask("cap A");
    // Each input arrives while the call before it is in flight: A, then follow-ups B and C (the cap), then D.
    for (const [i, memory] of ["cap B", "cap C", "cap D"].entries()) {
      await vi.waitFor(() => expect(calls()).toHaveLength(before + i + 1), { timeout: 10_000 });
      expect(await ask(memory)).toBe("in_flight");
    }
    expect(await holder).toBe("enhanced");
    await settleDeferred();

    const sent = calls()
      .slice(before)
      .map((r) => r.summary.lastUser);
    expect(sent).toHaveLength(4);
    expect(sent[3]).toContain("cap D");
    const times = sent.map(timeOf);
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1] as number);
    const row = await t.db.feedEnhancement.findUniqueOrThrow({ where: { userId } });
    expect(row.pendingHash).toBeNull();
    expect(row.leaseToken).toBeNull();
    // What is stored is D's: asking with D again is a cache hit.
    expect(await ask("cap D")).toBe("cached");
  });
});

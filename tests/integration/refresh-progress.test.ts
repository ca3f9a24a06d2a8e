import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createCaller } from "@/server/api/root";
import type { TSessionUser } from "@/server/api/session-user";
import { detachedDefer } from "@/server/defer";
import { resetEnvForTests } from "@/server/env";
import {
  refreshTracker,
  rejoinRun,
  type TRefreshOptions,
  type TRunStep,
  type TRunStepEvent,
} from "@/server/intelligence/refresh";
import { createLogger } from "@/server/logger";
import { queryTimeline } from "@/server/timeline";
import { streamTrackerRefresh, type TRefreshProgressEvent } from "@/server/triggers";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/** Refresh progress: onStep hears each step as it happens, in order, and the SSE subscription streams them. */
const page = (price: string) =>
  `<!doctype html><html><head><title>Acme</title></head><body><main><p>Pro <span id="price">${price}</span></p></main></body></html>`;
const definition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

let db: TTestDb;
let site: TFixtureSite;
let me: TSessionUser;
let stranger: TSessionUser;

beforeAll(async () => {
  db = await createTestDb();
  site = await startFixtureSite();
  vi.stubEnv("AI_PROVIDER", "rules");
  vi.stubEnv("FETCH_ALLOW_HOSTS", new URL(site.url).host);
  resetEnvForTests();
  me = await ensureLocalUser(db.db);
  stranger = (await db.db.user.create({ data: { name: "Other" } })) as TSessionUser;
});
afterAll(async () => {
  vi.unstubAllEnvs();
  resetEnvForTests();
  await site?.close();
  await db?.close();
});

const options = (extra: Partial<TRefreshOptions> = {}): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url]),
  ...extra,
});

async function trackerAt(path: string, price: string): Promise<string> {
  site.setPage(path, { body: page(price) });
  const { tracker } = await createActiveTracker(db.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition,
  });
  return tracker.id;
}

const trace = (events: TRunStepEvent[]) => events.map((e) => `${e.step}:${e.status}`);

async function recordedSteps(runId: string): Promise<TRunStep[]> {
  const run = await db.db.refreshRun.findUniqueOrThrow({ where: { id: runId } });
  return run.steps as TRunStep[];
}

describe("refreshTracker onStep", () => {
  it("reports every step of a changed page in order, as it starts and ends, matching the run record", async () => {
    const trackerId = await trackerAt("/changed", "100");
    expect(await refreshTracker(db.db, trackerId, options())).toMatchObject({ outcome: "baseline" });

    site.setPage("/changed", { body: page("80") });
    const events: TRunStepEvent[] = [];
    const result = await refreshTracker(db.db, trackerId, options({ onStep: (e) => events.push(e) }));
    expect(result).toMatchObject({ status: "completed", outcome: "material", summary: "material: price 100→80" });

    expect(trace(events)).toEqual([
      "lease:running",
      "lease:ok",
      "crawl:running",
      "crawl:ok",
      "precheck:ok",
      "fill:running",
      "fill:ok",
      "diff:running",
      "diff:ok",
      "judge:running",
      "judge:ok",
      "append:running",
      "append:ok",
    ]);
    expect(events.find((e) => e.step === "precheck")).toMatchObject({ detail: "changed" });
    // The finished events are exactly what the run record keeps.
    const finished = events.filter((e) => e.status !== "running");
    expect(finished).toEqual(await recordedSteps(result.runId));
  });

  it("an unchanged page stops after the pre-check; a failing page ends with a failed crawl and no append", async () => {
    const trackerId = await trackerAt("/same", "50");
    await refreshTracker(db.db, trackerId, options());

    const same: TRunStepEvent[] = [];
    const unchanged = await refreshTracker(db.db, trackerId, options({ onStep: (e) => same.push(e) }));
    expect(unchanged.outcome).toBe("unchanged");
    expect(trace(same)).toEqual([
      "lease:running",
      "lease:ok",
      "crawl:running",
      "crawl:ok",
      "precheck:ok",
      "append:running",
      "append:ok",
    ]);

    site.setPage("/same", { status: 500, body: "boom" });
    const broken: TRunStepEvent[] = [];
    const failed = await refreshTracker(db.db, trackerId, options({ onStep: (e) => broken.push(e) }));
    expect(failed.status).toBe("failed");
    expect(trace(broken)).toEqual(["lease:running", "lease:ok", "crawl:running", "crawl:failed"]);
    expect(broken.filter((e) => e.status !== "running")).toEqual(await recordedSteps(failed.runId));
  });

  it("a listener that throws changes nothing about the run", async () => {
    const trackerId = await trackerAt("/throws", "10");
    await refreshTracker(db.db, trackerId, options());
    site.setPage("/throws", { body: page("20") });
    const result = await refreshTracker(
      db.db,
      trackerId,
      options({
        onStep: () => {
          throw new Error("listener broke");
        },
      }),
    );
    expect(result).toMatchObject({ status: "completed", outcome: "material", summary: "material: price 10→20" });
    expect((await queryTimeline(db.db, { trackerId })).items).toHaveLength(2);
  });
});

describe("streamed refresh (tracker.refreshProgress)", () => {
  const caller = (user: TSessionUser) => createCaller(testTrpcContext(db.db, user));

  async function collect(stream: AsyncIterable<TRefreshProgressEvent>): Promise<TRefreshProgressEvent[]> {
    const out: TRefreshProgressEvent[] = [];
    for await (const event of stream) out.push(event);
    return out;
  }

  it("yields the steps as they happen, then the result; the same key again replays the run", async () => {
    const trackerId = await trackerAt("/stream", "100");
    await refreshTracker(db.db, trackerId, options());
    site.setPage("/stream", { body: page("70"), delayMs: 200 });

    const events = await collect(
      await caller(me).tracker.refreshProgress({ trackerId, idempotencyKey: "progress-key-1" }),
    );
    const last = events.at(-1);
    expect(last).toMatchObject({ type: "result", result: { outcome: "material", summary: "material: price 100→70" } });
    const steps = events.flatMap((e) => (e.type === "step" ? [`${e.step.step}:${e.step.status}`] : []));
    expect(steps.slice(0, 4)).toEqual(["lease:running", "lease:ok", "crawl:running", "crawl:ok"]);
    expect(steps.at(-1)).toBe("append:ok");
    expect(events.filter((e) => e.type === "result")).toHaveLength(1);

    // A reconnect re-sends the same input: the finished run answers, nothing runs again.
    const again = await collect(
      await caller(me).tracker.refreshProgress({ trackerId, idempotencyKey: "progress-key-1" }),
    );
    expect(again).toEqual([
      {
        type: "result",
        result: expect.objectContaining({
          runId: (last as { result: { runId: string } }).result.runId,
          replayed: true,
        }),
      },
    ]);
    expect(await db.db.refreshRun.count({ where: { trackerId } })).toBe(2);
  });

  it("a reconnect while its run still goes waits for that run and answers with its result, not 'running'", async () => {
    const trackerId = await trackerAt("/rejoin", "100");
    await refreshTracker(db.db, trackerId, options());
    site.setPage("/rejoin", { body: page("60"), delayMs: 800 });
    const key = "rejoin-key-1";
    const first = collect(await caller(me).tracker.refreshProgress({ trackerId, idempotencyKey: key }));
    // The first stream's run holds the lease and waits on the slow page; the stream "reconnects" meanwhile.
    await vi.waitFor(() => expect(site.hits("/rejoin")).toBe(2), { timeout: 5_000, interval: 20 });
    const again = await collect(await caller(me).tracker.refreshProgress({ trackerId, idempotencyKey: key }));
    const ran = (await first).at(-1);
    expect(ran).toMatchObject({ type: "result", result: { status: "completed", outcome: "material" } });
    expect(again).toEqual([
      {
        type: "result",
        result: expect.objectContaining({
          runId: (ran as { result: { runId: string } }).result.runId,
          status: "completed",
          outcome: "material",
          summary: "material: price 100→60",
          replayed: true,
        }),
      },
    ]);
    expect(site.hits("/rejoin")).toBe(2); // the reconnect ran nothing
    expect(await db.db.refreshRun.count({ where: { trackerId } })).toBe(2);
  });

  it("a run that never ends (its holder died) is answered 'running' once the wait is over", async () => {
    const trackerId = await trackerAt("/gone", "1");
    const answer = {
      runId: "run-of-a-dead-holder",
      status: "running" as const,
      outcome: null,
      summary: "running",
      modelCalls: 0,
      error: null,
      replayed: true,
    };
    const input = { userId: me.id, trackerId, idempotencyKey: "never-recorded", answer };
    expect(await rejoinRun(db.db, input, { waitMs: 300 })).toEqual(answer);
    // The listener went away: the wait stops with it (well inside the test's timeout, not after a minute).
    const gone = new AbortController();
    setTimeout(() => gone.abort(), 100);
    expect(await rejoinRun(db.db, input, { waitMs: 60_000, signal: gone.signal })).toEqual(answer);
    // Any other answer is not waited on.
    const done = { ...answer, status: "completed" as const, outcome: "unchanged" as const };
    expect(await rejoinRun(db.db, { ...input, answer: done }, { waitMs: 60_000 })).toBe(done);
  });

  it("someone else's tracker is NOT_FOUND and nothing runs", async () => {
    const trackerId = await trackerAt("/mine", "1");
    await expect(
      collect(streamTrackerRefresh(db.db, { userId: stranger.id, trackerId, idempotencyKey: "stranger-key" })),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await db.db.refreshRun.count({ where: { trackerId } })).toBe(0);
  });
});

describe("tracker.timeline date range", () => {
  it("narrows entries to [from, to) and rejects a start after the end", async () => {
    const trackerId = await trackerAt("/range", "100");
    await refreshTracker(db.db, trackerId, options());
    site.setPage("/range", { body: page("50") });
    await refreshTracker(db.db, trackerId, options());
    const api = createCaller({
      db: db.db,
      user: me,
      log: createLogger({}, () => {}),
      requestId: "t",
      headers: new Headers(),
      defer: detachedDefer,
    });
    const all = await api.tracker.timeline({ trackerId });
    expect(all.items).toHaveLength(2);
    const newest = all.items[0]?.capturedAt as Date;
    const onlyNewest = await api.tracker.timeline({ trackerId, from: newest });
    expect(onlyNewest.items.map((i) => i.id)).toEqual([all.items[0]?.id]);
    const beforeNewest = await api.tracker.timeline({ trackerId, to: newest });
    expect(beforeNewest.items.map((i) => i.id)).toEqual([all.items[1]?.id]);
    await expect(
      api.tracker.timeline({ trackerId, from: new Date(newest.getTime() + 1000), to: newest }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

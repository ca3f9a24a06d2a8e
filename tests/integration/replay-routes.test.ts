import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type TReplayEvent, type TReplayResult, ZReplayEventSchema } from "@/contracts/replay";
import { handleReplayStreamRequest } from "@/server/api/replay-stream-route";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createCaller } from "@/server/api/root";
import { createApiToken } from "@/server/api-tokens";
import { resetEnvForTests } from "@/server/env";
import { refreshTracker } from "@/server/intelligence/refresh";
import { lockDefinition, saveDraftDefinition } from "@/server/trackers";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { signedInOwner } from "../helpers/auth";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * Every way a person reaches replay (docs/replay.md): tRPC, the public REST route with an API token, and the page's
 * NDJSON stream with the session cookie — over a tracker whose history was recorded by real refreshes of the
 * fixture site (rules mode, code rules only: no model anywhere).
 *
 * The history, under v1 (material on a 5 % move of the baseline):
 *   $49.00 baseline · $44.00 material (−10.2 %) · $43.00 noise (−2.3 % of 44) · $40.00 material (−9.1 % of 44)
 * The draft v2 is stricter (20 %): from the $49 baseline nothing later moves 20 %, so both material entries go.
 */
const PRICES = ["$49.00", "$44.00", "$43.00", "$40.00"];

let t: TTestDb;
let site: TFixtureSite;
let userId: string;
let cookie: string;
let token: string;
let trackerId: string;
let otherTrackerId: string;
let otherToken: string;
/** Runs whose entries v1 recorded as material. */
let materialRuns: string[];

async function refreshOver(id: string, path: string, prices: string[]) {
  const runs: { runId: string; outcome: string }[] = [];
  for (const price of prices) {
    site.setPage(path, { body: priceBody(price) });
    const run = await refreshTracker(t.db, id, {
      trigger: "manual",
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url]),
    });
    expect(run.status).toBe("completed");
    runs.push({ runId: run.runId, outcome: run.outcome ?? "" });
  }
  return runs;
}

beforeAll(async () => {
  // Replays are rate-limited per person (tested in usage tests); here the limit must not get in the way.
  vi.stubEnv("RATE_LIMIT_REPLAYS", "1000");
  resetEnvForTests();
  t = await createTestDb();
  site = await startFixtureSite();
  ({ userId, cookie } = await signedInOwner(t.db));
  token = (await createApiToken(t.db, { userId, name: "replay" })).token;

  const mine = await createActiveTracker(t.db, {
    userId,
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor("/replay/item") },
    definition: cssPriceDefinition(0.05),
  });
  trackerId = mine.tracker.id;
  const runs = await refreshOver(trackerId, "/replay/item", PRICES);
  expect(runs.map((r) => r.outcome)).toEqual(["baseline", "material", "noise", "material"]);
  materialRuns = [runs[1]?.runId ?? "", runs[3]?.runId ?? ""];
  await saveDraftDefinition(t.db, { userId, trackerId, definition: cssPriceDefinition(0.2) });

  const other = await t.db.user.create({ data: { name: "Someone else", email: "other@example.test" } });
  const theirs = await createActiveTracker(t.db, {
    userId: other.id,
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor("/replay/theirs") },
    definition: cssPriceDefinition(0.05),
  });
  otherTrackerId = theirs.tracker.id;
  otherToken = (await createApiToken(t.db, { userId: other.id, name: "theirs" })).token;
  await refreshOver(otherTrackerId, "/replay/theirs", ["$10.00", "$20.00"]);
}, 60_000);
afterAll(async () => {
  vi.unstubAllEnvs();
  resetEnvForTests();
  await site?.close();
  await t?.close();
});

function rest(path: string, body: unknown, auth: string | null = token) {
  return handleRestRequest(
    new Request(`http://app/api/v1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      body: JSON.stringify(body),
    }),
    { db: t.db },
  );
}

function stream(id: string, body: unknown, init: { signal?: AbortSignal; cookie?: string | null } = {}) {
  const sendCookie = init.cookie === undefined ? cookie : init.cookie;
  return handleReplayStreamRequest(
    new Request(`http://app/api/trackers/${id}/replay`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(sendCookie ? { cookie: sendCookie } : {}) },
      body: JSON.stringify(body),
      ...(init.signal ? { signal: init.signal } : {}),
    }),
    id,
    { db: t.db },
  );
}

/** Reads an NDJSON answer line by line; `onLine` may act (e.g. abort) as each event arrives. */
async function readEvents(res: Response, onLine: (event: TReplayEvent) => void = () => {}) {
  const events: TReplayEvent[] = [];
  const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) throw new Error("no body");
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const event = ZReplayEventSchema.parse(JSON.parse(buffer.slice(0, newline)));
      buffer = buffer.slice(newline + 1);
      events.push(event);
      onLine(event);
      newline = buffer.indexOf("\n");
    }
  }
  expect(buffer).toBe(""); // every line ends with a newline
  return events;
}

describe("POST /api/v1/trackers/{id}/replay (API token)", () => {
  it("answers 200 with the recorded and the replayed timeline side by side, and the counts", async () => {
    const res = await rest(`/trackers/${trackerId}/replay`, {});
    const body = (await res.json()) as TReplayResult;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.plan).toMatchObject({ captures: 4, modelCallsNeeded: 0, version: 2, lockedVersion: 1 });
    expect(body.recorded.filter((e) => e.materiality === "material").map((e) => e.runId)).toEqual(materialRuns);
    expect(body.replayed.filter((e) => e.materiality === "material")).toEqual([]);
    expect(body.removed.sort()).toEqual([...materialRuns].sort());
    expect(body.added).toEqual([]);
    expect(body.counts).toMatchObject({ recordedMaterial: 2, replayedMaterial: 0 });
    expect(body).toMatchObject({ modelCalls: 0, cancelled: false });
    expect(body.summary).toMatch(/0 material changes instead of 2/);
  });

  it("replaying the locked definition reproduces the recorded timeline (nothing added, removed or changed)", async () => {
    const res = await rest(`/trackers/${trackerId}/replay`, { definition: "locked" });
    const body = (await res.json()) as TReplayResult;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect({ added: body.added, removed: body.removed, changed: body.changed }).toEqual({
      added: [],
      removed: [],
      changed: [],
    });
    expect(body.counts.replayedMaterial).toBe(body.counts.recordedMaterial);
  });

  it("planOnly counts the captures of the period and makes no model call", async () => {
    const res = await rest(`/trackers/${trackerId}/replay`, { planOnly: true });
    const body = (await res.json()) as TReplayResult;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.plan).toMatchObject({ captures: 4, modelCallsNeeded: 0, modelAvailable: false });
    expect(body.modelCalls).toBe(0);
    // A period before any capture holds none.
    const empty = (await (
      await rest(`/trackers/${trackerId}/replay`, { planOnly: true, to: "2000-01-01" })
    ).json()) as TReplayResult;
    expect(empty.plan.captures).toBe(0);
  });

  it("is 404 for another person's tracker and for an unknown one, as every route", async () => {
    for (const id of [otherTrackerId, "no-such-tracker"]) {
      const res = await rest(`/trackers/${id}/replay`, {});
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    }
  });

  it("is 400 for a period that runs backwards, an impossible date or a budget over the maximum; 401 without a token", async () => {
    const cases: [unknown, RegExp][] = [
      [{ from: "2026-03-01", to: "2026-01-01" }, /start date must not be after the end date/],
      [{ from: "2026-02-31" }, /February 2026 has 28 days/],
      [{ modelBudget: 201 }, /modelBudget/],
      [{ modelBudget: -1 }, /modelBudget/],
      [{ definition: "newest" }, /definition/],
    ];
    for (const [body, message] of cases) {
      const res = await rest(`/trackers/${trackerId}/replay`, body);
      const json = (await res.json()) as { error: { code: string; message: string; fieldErrors?: object } };
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(json.error.code).toBe("BAD_REQUEST");
      expect(`${json.error.message} ${JSON.stringify(json.error.fieldErrors)}`).toMatch(message);
    }
    expect((await rest(`/trackers/${trackerId}/replay`, {}, null)).status).toBe(401);
  });
});

describe("tRPC tracker.replayPlan / replay", () => {
  it("gives the plan and the same result as REST, with the caller's own trackers only", async () => {
    const caller = createCaller(testTrpcContext(t.db, { id: userId, name: "Owner", email: null, role: "owner" }));
    const plan = await caller.tracker.replayPlan({ trackerId });
    expect(plan).toMatchObject({ captures: 4, modelCallsNeeded: 0, version: 2, lockedVersion: 1 });
    const result = await caller.tracker.replay({ trackerId });
    expect(result.removed.sort()).toEqual([...materialRuns].sort());
    await expect(caller.tracker.replayPlan({ trackerId: otherTrackerId })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(
      caller.tracker.replay({ trackerId, from: new Date("2026-03-01"), to: new Date("2026-01-01") }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("POST /api/trackers/[trackerId]/replay (the page's stream)", () => {
  it("streams a progress line per capture, then the plan, then the result", async () => {
    const res = await stream(trackerId, {});
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/x-ndjson/);
    const events = await readEvents(res);
    // Code rules only: one pass over the captures (which counts what would need the model), its plan, the result.
    expect(events.map((e) => (e.type === "progress" ? `${e.done}/${e.total}` : e.type))).toEqual([
      "1/4",
      "2/4",
      "3/4",
      "4/4",
      "plan",
      "result",
    ]);
    expect(events.find((e) => e.type === "plan")).toMatchObject({ plan: { captures: 4, modelCallsNeeded: 0 } });
    const last = events.at(-1);
    if (last?.type !== "result") throw new Error("no result");
    expect(last.result.removed.sort()).toEqual([...materialRuns].sort());
    expect(last.result.cancelled).toBe(false);
  });

  it("stops early when the request is aborted: fewer captures judged, and the result says cancelled", async () => {
    const abort = new AbortController();
    const res = await stream(trackerId, {}, { signal: abort.signal });
    expect(res.status).toBe(200);
    // The answer starts with the first capture's progress; the person presses Cancel at once.
    abort.abort();
    const events = await readEvents(res);
    const done = events.filter((e) => e.type === "progress").map((e) => (e.type === "progress" ? e.done : 0));
    expect(Math.max(0, ...done)).toBeLessThan(4);
    const last = events.at(-1);
    expect(last).toMatchObject({ type: "result", result: { cancelled: true } });
  });

  it("answers ordinary errors before the plan: 401 without a session, 404 for another person's tracker, 400 for bad input", async () => {
    const anon = await stream(trackerId, {}, { cookie: null });
    expect(anon.status).toBe(401);
    const theirs = await stream(otherTrackerId, {});
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    const backwards = await stream(trackerId, { from: "2026-03-01", to: "2026-01-01" });
    expect(backwards.status).toBe(400);
    expect(await backwards.json()).toMatchObject({
      error: { code: "BAD_REQUEST", fieldErrors: { from: expect.stringMatching(/start/) } },
    });
    const budget = await stream(trackerId, { modelBudget: 10_000 });
    expect(budget.status).toBe(400);
  });
});

describe("rate limit", () => {
  it("counts full replays per person (429 with Retry-After once spent); plans stay free", async () => {
    vi.stubEnv("RATE_LIMIT_REPLAYS", "1");
    resetEnvForTests();
    try {
      const path = `/trackers/${otherTrackerId}/replay`;
      const first = await rest(path, {}, otherToken);
      expect(first.status, await first.clone().text()).toBe(200);
      const second = await rest(path, {}, otherToken);
      expect(second.status).toBe(429);
      expect(second.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(await second.json()).toMatchObject({
        error: { code: "TOO_MANY_REQUESTS", message: expect.stringMatching(/Too many replays/) },
      });
      expect((await rest(path, { planOnly: true }, otherToken)).status).toBe(200);
    } finally {
      vi.stubEnv("RATE_LIMIT_REPLAYS", "1000");
      resetEnvForTests();
    }
  });
});

describe("tRPC tracker.rejudgeHistory (lock with history)", () => {
  it("re-judges the stored history under the version just locked, for the owner only", async () => {
    const caller = createCaller(testTrpcContext(t.db, { id: userId, name: "Owner", email: null, role: "owner" }));
    await lockDefinition(t.db, { userId, trackerId }); // v2 (20 %) is now in force
    const answer = await caller.tracker.rejudgeHistory({ trackerId });
    expect(answer).toMatchObject({ version: 2, captures: 4 });
    expect(answer.summary).not.toBe("");
    // The originals stay: v1's two material entries are still on the timeline.
    const v1Material = await t.db.entityChange.count({
      where: { trackerId, definitionVersion: 1, materiality: "material" },
    });
    expect(v1Material).toBe(2);
    await expect(caller.tracker.rejudgeHistory({ trackerId: otherTrackerId })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(
      caller.tracker.rejudgeHistory({ trackerId, from: new Date("2026-03-01"), to: new Date("2026-01-01") }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

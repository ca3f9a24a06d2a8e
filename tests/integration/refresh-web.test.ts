import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { getCurrentState, queryTimeline } from "@/server/timeline";
import { lockDefinition, saveDraftDefinition } from "@/server/trackers";
import { ACME_PRICING_DEFINITION } from "../fixtures/acme-pricing";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/** The hot loop against the local fixture site, with the real @ai-sdk/openai client on the fixture model server. */

const page = (price: string, rating: string, extra = "") => `<!doctype html><html><head>
<title>Acme pricing</title><link rel="canonical" href="/pricing">
<script nonce="${Math.random().toString(36).slice(2)}">window.__build = "${Date.now()}"</script></head>
<body><main><h1>Pricing</h1><p class="price">Pro plan <span id="price">${price}</span> per month</p>
<p>Rated <b id="rating">${rating}</b> by customers.</p>${extra}</main></body></html>`;

const extractorDefinition = ACME_PRICING_DEFINITION;

/** Same fields without extractors: the model fills them. */
const modelDefinition = {
  fields: [
    { name: "price", type: "money", currency: "USD", description: "Pro plan monthly price" },
    { name: "rating", type: "number", description: "Customer rating" },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 }, rating: { kind: "numeric", absolute: 0.2 } },
};

let db: TTestDb;
let site: TFixtureSite;
let models: TModelServer;

beforeAll(async () => {
  db = await createTestDb();
  site = await startFixtureSite();
  models = await startModelServer();
});
afterAll(async () => {
  await site?.close();
  await models?.close();
  await db?.close();
});
beforeEach(() => {
  models.setRecordings([]);
});

function optionsFor(extra: Partial<TRefreshOptions> = {}): TRefreshOptions {
  const model = fixtureModel(models.url);
  return {
    trigger: "manual",
    models: { filler: model, judge: model },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 1500, maxBytes: 200_000 }),
    maxModelRetries: 0,
    ...extra,
  };
}

async function trackerFor(path: string, definition: unknown) {
  const { tracker, userId } = await createActiveTracker(db.db, {
    capability: "web.scrape",
    capabilityInput: { url: `${site.url}${path}` },
    definition,
  });
  return { trackerId: tracker.id, userId };
}

async function stateOf(trackerId: string) {
  const entity = await db.db.trackedEntity.findFirst({ where: { trackerId } });
  return entity ? getCurrentState(db.db, entity.id) : null;
}

const changeCount = (trackerId: string) => db.db.entityChange.count({ where: { trackerId } });

describe("pre-check", () => {
  it("identical content (volatile noise aside) makes no fill and no model call; only lastCheckedAt moves", async () => {
    site.setPage("/pre", { body: page("$49.00", "4.5") });
    models.setRecordings([
      {
        name: "fill",
        match: { schemaName: "tracker_record" },
        response: { json: { price: { amount: 49, currency: "USD" }, rating: 4.5, notable_signals: [] } },
      },
    ]);
    const { trackerId } = await trackerFor("/pre", modelDefinition);
    const first = await refreshTracker(db.db, trackerId, optionsFor());
    expect(first).toMatchObject({ status: "completed", outcome: "baseline", modelCalls: 1 });
    const before = await stateOf(trackerId);

    site.setPage("/pre", { body: page("$49.00", "4.5") }); // new nonce and build stamp only
    const requests = models.requests.length;
    const second = await refreshTracker(db.db, trackerId, optionsFor());
    expect(second).toMatchObject({ status: "completed", outcome: "unchanged", summary: "no change", modelCalls: 0 });
    expect(models.requests.length).toBe(requests);
    const after = await stateOf(trackerId);
    expect(after?.fields).toEqual(before?.fields);
    expect(after?.updatedAt.getTime()).toBe(before?.updatedAt.getTime());
    expect(after?.lastCheckedAt.getTime()).toBeGreaterThan(before?.lastCheckedAt.getTime() ?? 0);
    expect(await changeCount(trackerId)).toBe(1);
    const run = await db.db.refreshRun.findUniqueOrThrow({ where: { id: second.runId } });
    expect((run.steps as { step: string }[]).map((s) => s.step)).not.toContain("fill");
  });
});

describe("fill conforms to the lock", () => {
  it("puts extra observed facts in notable_signals and repairs an answer with an invented field", async () => {
    site.setPage("/fill", { body: page("$49.00", "4.5") });
    const { trackerId } = await trackerFor("/fill", modelDefinition);
    models.setRecordings([
      {
        name: "invented field",
        times: 1,
        match: { schemaName: "tracker_record" },
        response: {
          json: { price: { amount: 49, currency: "USD" }, rating: 4.5, discount_code: "SAVE10", notable_signals: [] },
        },
      },
      {
        name: "repaired",
        match: { schemaName: "tracker_record" },
        response: {
          json: { price: { amount: 49, currency: "USD" }, rating: 4.5, notable_signals: ["New annual plan mentioned"] },
        },
      },
    ]);
    const result = await refreshTracker(db.db, trackerId, optionsFor());
    expect(result).toMatchObject({ status: "completed", outcome: "baseline", modelCalls: 2 });
    const state = await stateOf(trackerId);
    expect(state?.fields).toEqual({
      price: { amount: 49, currency: "USD" },
      rating: 4.5,
      notable_signals: ["New annual plan mentioned"],
    });
    expect(state?.fields).not.toHaveProperty("discount_code");
  });

  it("never stores a model answer of the wrong type: the run fails cleanly and state is untouched", async () => {
    site.setPage("/badtype", { body: page("$49.00", "4.5") });
    const { trackerId } = await trackerFor("/badtype", modelDefinition);
    models.setRecordings([
      {
        name: "wrong type",
        match: { schemaName: "tracker_record" },
        response: { json: { price: "cheap", rating: "great", notable_signals: [] } },
      },
    ]);
    const result = await refreshTracker(db.db, trackerId, optionsFor());
    expect(result.status).toBe("failed");
    expect(result.error?.message).toMatch(/valid|model/i);
    expect(await stateOf(trackerId)).toBeNull();
    expect(await changeCount(trackerId)).toBe(0);
    const tracker = await db.db.tracker.findUniqueOrThrow({ where: { id: trackerId } });
    expect(tracker.consecutiveFailures).toBe(1);
  });
});

describe("materiality and drift", () => {
  it("a sub-threshold change writes no row; drift crosses the threshold against the baseline", async () => {
    site.setPage("/drift", { body: page("$49.00", "4.4") });
    const { trackerId } = await trackerFor("/drift", extractorDefinition);
    const opts = optionsFor();
    const modelRequests = models.requests.length;
    expect((await refreshTracker(db.db, trackerId, opts)).outcome).toBe("baseline");

    site.setPage("/drift", { body: page("$49.00", "4.3") });
    const tick = await refreshTracker(db.db, trackerId, opts);
    expect(tick).toMatchObject({ outcome: "noise", summary: "noise: rating 4.4→4.3", modelCalls: 0 });
    expect(await changeCount(trackerId)).toBe(1);
    expect((await stateOf(trackerId))?.fields.rating).toBe(4.4); // baseline kept

    site.setPage("/drift", { body: page("$49.00", "4.2") });
    const crossed = await refreshTracker(db.db, trackerId, opts);
    expect(crossed).toMatchObject({ outcome: "material", summary: "material: rating 4.4→4.2" });
    expect(await changeCount(trackerId)).toBe(2);
    expect((await stateOf(trackerId))?.fields.rating).toBe(4.2);
    expect(models.requests.length).toBe(modelRequests); // extractors + numeric rules: no model at all
  });

  it("a material run writes exactly one change row and overwrites the current state", async () => {
    site.setPage("/append", { body: page("$49.00", "4.5") });
    const { trackerId } = await trackerFor("/append", extractorDefinition);
    await refreshTracker(db.db, trackerId, optionsFor());
    site.setPage("/append", { body: page("$39.00", "4.5") });
    const result = await refreshTracker(db.db, trackerId, optionsFor());
    expect(result.outcome).toBe("material");
    const timeline = await queryTimeline(db.db, { trackerId });
    expect(timeline.items).toHaveLength(2);
    expect(timeline.items[0]).toMatchObject({
      materiality: "material",
      runId: result.runId,
      delta: { price: { from: { amount: 49, currency: "USD" }, to: { amount: 39, currency: "USD" } } },
      definitionVersion: 1,
    });
    expect((await stateOf(trackerId))?.fields.price).toEqual({ amount: 39, currency: "USD" });
  });

  it("rules mode: a change no rule can decide becomes notable, saying no model is configured", async () => {
    site.setPage("/rules", { body: page("$49.00", "4.5", "<p id='tag'>Summer sale</p>") });
    const def = {
      fields: [
        { name: "tagline", type: "string", description: "Promo line", extractor: { kind: "css", selector: "#tag" } },
      ],
      identityRule: { kind: "canonical_url" },
      materiality: {},
    };
    const { trackerId } = await trackerFor("/rules", def);
    const rules = optionsFor({ models: { filler: null, judge: null } });
    await refreshTracker(db.db, trackerId, rules);
    site.setPage("/rules", { body: page("$49.00", "4.5", "<p id='tag'>Winter sale</p>") });
    const result = await refreshTracker(db.db, trackerId, rules);
    expect(result.outcome).toBe("notable");
    const [entry] = (await queryTimeline(db.db, { trackerId })).items;
    expect(entry?.decisions).toMatchObject({
      tagline: { verdict: "notable", reason: expect.stringMatching(/No AI model configured/) },
    });
  });
});

describe("idempotency and crash safety", () => {
  it("a redelivered refresh with the same key returns the first result and writes nothing", async () => {
    site.setPage("/idem", { body: page("$49.00", "4.5") });
    const { trackerId } = await trackerFor("/idem", extractorDefinition);
    const first = await refreshTracker(db.db, trackerId, optionsFor({ idempotencyKey: "delivery-1" }));
    const hits = site.requests.filter((r) => r.path === "/idem").length;
    const again = await refreshTracker(db.db, trackerId, optionsFor({ idempotencyKey: "delivery-1" }));
    expect(again).toEqual({ ...first, replayed: true });
    expect(site.requests.filter((r) => r.path === "/idem").length).toBe(hits);
    expect(await db.db.refreshRun.count({ where: { trackerId } })).toBe(1);
    expect(await db.db.capabilityCall.count({ where: { run: { trackerId } } })).toBe(1);
  });

  it("a run that dies between fill and append leaves no partial state; the next refresh completes it", async () => {
    site.setPage("/crash", { body: page("$49.00", "4.5") });
    const { trackerId } = await trackerFor("/crash", extractorDefinition);
    await refreshTracker(db.db, trackerId, optionsFor());
    const before = await stateOf(trackerId);

    site.setPage("/crash", { body: page("$59.00", "4.5") });
    const crashed = await refreshTracker(
      db.db,
      trackerId,
      optionsFor({
        afterFill: async () => {
          throw new Error("process killed");
        },
      }),
    );
    expect(crashed.status).toBe("failed");
    expect(crashed.error?.message).not.toContain("process killed"); // internals stay in the log
    expect(await stateOf(trackerId)).toEqual(before);
    expect(await changeCount(trackerId)).toBe(1);

    const next = await refreshTracker(db.db, trackerId, optionsFor());
    expect(next).toMatchObject({ status: "completed", outcome: "material" });
    expect((await stateOf(trackerId))?.fields.price).toEqual({ amount: 59, currency: "USD" });
  });

  it("a run whose process was killed is taken over once its lease expires; the runs log gets one finished run", async () => {
    site.setPage("/killed", { body: page("$49.00", "4.5") });
    const { trackerId } = await trackerFor("/killed", extractorDefinition);
    // Simulate a process that claimed the run, made its capability call and died holding the lease.
    let kill: (() => void) | undefined;
    const dying = refreshTracker(
      db.db,
      trackerId,
      optionsFor({
        idempotencyKey: "cron-tick-7",
        leaseMs: 50,
        renewLease: false, // a killed process renews nothing
        afterFill: () =>
          new Promise<void>((_, reject) => {
            kill = () => reject(new Error("never"));
          }),
      }),
    );
    await expect.poll(() => kill !== undefined, { timeout: 10_000 }).toBe(true);
    // A run is recorded only when it ends: nothing pending or running is left behind by the dying one.
    expect(await db.db.refreshRun.count({ where: { trackerId } })).toBe(0);
    await new Promise((r) => setTimeout(r, 80)); // lease expires
    const resumed = await refreshTracker(db.db, trackerId, optionsFor({ idempotencyKey: "cron-tick-7" }));
    expect(resumed).toMatchObject({ status: "completed", outcome: "baseline", replayed: false });
    const runs = await db.db.refreshRun.findMany({ where: { trackerId } });
    expect(runs.map((r) => [r.id, r.status])).toEqual([[resumed.runId, "completed"]]);
    expect(await db.db.capabilityCall.count({ where: { run: { trackerId } } })).toBe(1);
    // The zombie wakes up: its final write is fenced off.
    kill?.();
    const zombie = await dying;
    expect(zombie.status).not.toBe("completed");
    expect(await changeCount(trackerId)).toBe(1);
  });
});

describe("definition versions", () => {
  it("locking a new version makes the next refresh re-fill even on identical content", async () => {
    site.setPage("/version", { body: page("$49.00", "4.5") });
    const { trackerId, userId } = await trackerFor("/version", extractorDefinition);
    await refreshTracker(db.db, trackerId, optionsFor());
    expect((await refreshTracker(db.db, trackerId, optionsFor())).outcome).toBe("unchanged");

    await saveDraftDefinition(db.db, {
      userId,
      trackerId,
      definition: {
        ...extractorDefinition,
        materiality: { ...extractorDefinition.materiality, rating: { kind: "any_change" } },
      },
    });
    await lockDefinition(db.db, { userId, trackerId });
    const after = await refreshTracker(db.db, trackerId, optionsFor());
    expect(after.outcome).not.toBe("unchanged");
    const run = await db.db.refreshRun.findUniqueOrThrow({ where: { id: after.runId } });
    expect(run.definitionVersion).toBe(2);
    expect((run.steps as { step: string }[]).map((s) => s.step)).toContain("fill");
  });
});

describe("failures leave state alone and back off", () => {
  const cases: [string, Parameters<TFixtureSite["setPage"]>[1], RegExp][] = [
    ["500", { status: 500, body: "boom" }, /500/],
    ["wrong content type", { contentType: "application/pdf", body: "%PDF-1.4" }, /not a web page|pdf/i],
    ["oversized page", { hugeBytes: 2_000_000 }, /too large|larger|limit/i],
    ["timeout", { delayMs: 4000, body: page("$1", "1") }, /time/i],
    ["redirect loop", { redirectTo: "/fail-loop" }, /redirect/i],
  ];
  for (const [name, pageSpec, message] of cases) {
    it(`${name} → failed run with a readable error, no state change`, async () => {
      site.setPage("/fail-loop", { body: page("$49.00", "4.5") });
      const { trackerId } = await trackerFor("/fail-loop", extractorDefinition);
      await refreshTracker(db.db, trackerId, optionsFor());
      const before = await stateOf(trackerId);
      site.setPage("/fail-loop", pageSpec);
      const t0 = new Date();
      const result = await refreshTracker(db.db, trackerId, optionsFor());
      expect(result.status).toBe("failed");
      expect(result.error?.message).toMatch(message);
      expect(result.summary).toMatch(/^failed: /);
      expect(await stateOf(trackerId)).toEqual(before);
      const tracker = await db.db.tracker.findUniqueOrThrow({ where: { id: trackerId } });
      expect(tracker).toMatchObject({ consecutiveFailures: 1, leaseToken: null });
      expect(tracker.lastError).toBe(result.error?.message);
      expect(tracker.nextRunAt?.getTime()).toBeGreaterThan(t0.getTime());
    });
  }

  it("a private address is blocked with a clear error when not allowed", async () => {
    const { trackerId } = await trackerFor("/anything", extractorDefinition);
    const result = await refreshTracker(db.db, trackerId, optionsFor({ capabilityConfig: localCapabilityConfig([]) }));
    expect(result.status).toBe("failed");
    expect(result.error?.message).toMatch(/FETCH_ALLOW_HOSTS/);
    expect(await stateOf(trackerId)).toBeNull();
  });

  it("backs off further with every consecutive failure and resets on success", async () => {
    site.setPage("/flaky", { status: 503, body: "down" });
    const { trackerId } = await trackerFor("/flaky", extractorDefinition);
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const now = new Date();
      await refreshTracker(db.db, trackerId, optionsFor({ now: () => now }));
      const t = await db.db.tracker.findUniqueOrThrow({ where: { id: trackerId } });
      delays.push((t.nextRunAt?.getTime() ?? 0) - now.getTime());
    }
    expect(delays[1]).toBeGreaterThan(delays[0] ?? 0);
    expect(delays[2]).toBeGreaterThan(delays[1] ?? 0);
    site.setPage("/flaky", { body: page("$49.00", "4.5") });
    expect((await refreshTracker(db.db, trackerId, optionsFor())).status).toBe("completed");
    expect((await db.db.tracker.findUniqueOrThrow({ where: { id: trackerId } })).consecutiveFailures).toBe(0);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TReplayPlan } from "@/contracts/replay";
import { refreshTracker } from "@/server/intelligence/refresh";
import {
  getRejudgedHistory,
  lockDefinition,
  rejudgeHistory,
  replayTracker,
  saveDraftDefinition,
} from "@/server/trackers";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * Replay (docs/replay.md) over 50 stored captures of a fixture page whose price moves every step and whose tagline
 * changes every seventh: recorded in rules mode, then replayed under the locked definition and under stricter and
 * looser thresholds. The expectations come from an independent walk of the documented rule (docs/design.md §3: a numeric
 * move below the threshold is noise and keeps the baseline, so drift still crosses it), not from the engine.
 */

const STEPS = 50;
const MOVES = [0.02, -0.03, 0.07, -0.01, -0.12, 0.04, 0.09, -0.06, 0.03, -0.02, 0.05, -0.08];
const prices: number[] = [];
for (let i = 0, p = 49; i < STEPS; i++) {
  prices.push(p);
  p = Math.round(p * (1 + (MOVES[i % MOVES.length] as number)) * 100) / 100;
}
const tagline = (i: number) => `Tagline edition ${Math.floor(i / 7)}`;
const page = (i: number) => `<!doctype html><html><head><title>Acme pricing</title>
<link rel="canonical" href="/replay"></head><body><main><h1>Pricing</h1>
<p>Pro plan <span id="price">$${(prices[i] as number).toFixed(2)}</span> per month</p>
<p id="tagline">${tagline(i)}</p></main></body></html>`;

const definitionWith = (relative: number, taglineDescription = "The marketing tagline") => ({
  fields: [
    {
      name: "price",
      type: "money",
      currency: "USD",
      description: "Pro plan monthly price",
      extractor: { kind: "css", selector: "#price" },
    },
    {
      name: "tagline",
      type: "string",
      description: taglineDescription,
      extractor: { kind: "css", selector: "#tagline" },
    },
  ],
  identityRule: { kind: "canonical_url" },
  // No rule for the tagline: the agent judges it (in rules mode: notable, left to the person).
  materiality: { price: { kind: "numeric", relative } },
});

/** The oracle: per step after the first, what a threshold records (material on price, else notable on tagline). */
function expectedUnder(relative: number): Map<number, "material" | "notable"> {
  const out = new Map<number, "material" | "notable">();
  // In whole cents and per mille, so float noise cannot flip a verdict at the threshold (as the rules promise).
  const cents = (p: number) => Math.round(p * 100);
  let baseline = cents(prices[0] as number);
  for (let i = 1; i < STEPS; i++) {
    const p = cents(prices[i] as number);
    const material = Math.abs(p - baseline) * 1000 >= Math.round(relative * 1000) * baseline;
    if (material) baseline = p;
    if (material) out.set(i, "material");
    else if (tagline(i) !== tagline(i - 1)) out.set(i, "notable");
  }
  return out;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const START = Date.UTC(2026, 9, 1, 9);
const dayOf = (i: number) => new Date(START + i * DAY_MS);

let t: TTestDb;
let site: TFixtureSite;
let models: TModelServer;
let trackerId: string;
let userId: string;
/** Step index → the run that saw it. */
const runOfStep = new Map<number, string>();
const stepOfRun = new Map<string, number>();

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  models = await startModelServer();
  const created = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url: `${site.url}/replay` },
    definition: definitionWith(0.05),
  });
  trackerId = created.tracker.id;
  userId = created.userId;
  for (let i = 0; i < STEPS; i++) {
    site.setPage("/replay", { body: page(i) });
    const at = dayOf(i);
    const result = await refreshTracker(t.db, trackerId, {
      trigger: "manual",
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url]),
      now: () => at,
    });
    expect(result.status).toBe("completed");
    runOfStep.set(i, result.runId);
    stepOfRun.set(result.runId, i);
  }
}, 120_000);
afterAll(async () => {
  await site?.close();
  await models?.close();
  await t?.close();
});
beforeEach(() => models.setRecordings([]));

const replayDraft = async (definition: unknown, extra: Record<string, unknown> = {}) => {
  await saveDraftDefinition(t.db, { userId, trackerId, definition });
  return replayTracker(
    t.db,
    { userId, trackerId, definition: "draft", modelBudget: 0, planOnly: false, ...extra },
    {},
    {
      models: { filler: null, judge: null },
    },
  );
};

const byStep = (entries: { runId: string; materiality: string }[]) =>
  new Map(entries.filter((e) => e.materiality !== "baseline").map((e) => [stepOfRun.get(e.runId), e.materiality]));

describe("replay over stored captures", () => {
  it("the recorded history is what the oracle says (the premise of the replays below)", async () => {
    const changes = await t.db.entityChange.findMany({ where: { trackerId } });
    expect(await t.db.capture.count({ where: { trackerId } })).toBe(STEPS);
    expect(byStep(changes)).toEqual(expectedUnder(0.05));
  });

  it("replaying the locked definition reproduces the recorded timeline exactly, with no model call", async () => {
    const requests = models.requests.length;
    const plans: TReplayPlan[] = [];
    const result = await replayTracker(
      t.db,
      { userId, trackerId, definition: "locked", modelBudget: 5, planOnly: false },
      { onPlan: (p) => plans.push(p) },
      { models: { filler: fixtureModel(models.url), judge: fixtureModel(models.url) } },
    );
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({ captures: STEPS, modelCallsNeeded: 0, version: 1, lockedVersion: 1 });
    // The tagline verdicts stood in for the agent: stored, same delta, same rule.
    const taglineChanges = [...Array(STEPS).keys()].filter((i) => i > 0 && tagline(i) !== tagline(i - 1)).length;
    expect(plans[0]?.reusable).toBe(taglineChanges);
    expect(result.modelCalls).toBe(0);
    expect(models.requests.length).toBe(requests);
    const strip = (e: (typeof result.recorded)[number]) => ({
      runId: e.runId,
      materiality: e.materiality,
      delta: e.delta,
      decisions: e.decisions,
    });
    expect(result.replayed.map(strip)).toEqual(result.recorded.map(strip));
    expect(result.recorded).toHaveLength(expectedUnder(0.05).size + 1);
    expect(result).toMatchObject({ added: [], removed: [], changed: [], wouldAsk: 0, cancelled: false });
    expect(result.summary).toMatch(/^would have recorded the same \d+ material changes$/);
  });

  it("a stricter threshold removes exactly the expected entries; a looser one adds them", async () => {
    const recorded = expectedUnder(0.05);
    for (const relative of [0.1, 0.02]) {
      const result = await replayDraft(definitionWith(relative));
      const expected = expectedUnder(relative);
      expect(byStep(result.replayed)).toEqual(expected);
      const steps = (ids: string[]) => ids.map((id) => stepOfRun.get(id)).sort((a, b) => (a ?? 0) - (b ?? 0));
      const only = (a: Map<number, string>, b: Map<number, string>) =>
        [...a.keys()].filter((k) => !b.has(k)).sort((x, y) => x - y);
      expect(steps(result.removed)).toEqual(only(recorded, expected));
      expect(steps(result.added)).toEqual(only(expected, recorded));
      expect(result.counts.replayedMaterial).toBe([...expected.values()].filter((m) => m === "material").length);
      expect(result.counts.recordedMaterial).toBe([...recorded.values()].filter((m) => m === "material").length);
      expect(result.summary).toContain(
        `would have recorded ${result.counts.replayedMaterial} material changes instead of ${result.counts.recordedMaterial}`,
      );
      expect(result.summary).toMatch(relative > 0.05 ? /would have missed: price/ : /would have added: price/);
      expect(result.plan).toMatchObject({ version: 2, lockedVersion: 1, modelCallsNeeded: 0 });
    }
    // The replay wrote nothing: the timeline is as it was.
    expect(await t.db.entityChange.count({ where: { trackerId } })).toBe(recorded.size + 1);
  });

  it("states the model calls it would need first, and in rules mode makes none", async () => {
    // A reworded field description: the stored tagline verdicts no longer stand in.
    const result = await replayDraft(definitionWith(0.05, "The tagline, as a sign of repositioning"));
    const taglineSteps = [...Array(STEPS).keys()].filter((i) => i > 0 && tagline(i) !== tagline(i - 1));
    expect(result.plan.modelCallsNeeded).toBe(taglineSteps.length);
    expect(result.plan.modelAvailable).toBe(false);
    expect(result.modelCalls).toBe(0);
    expect(result.wouldAsk).toBe(taglineSteps.length);
    const asked = result.replayed.filter((e) => e.wouldAsk.includes("tagline")).map((e) => stepOfRun.get(e.runId));
    expect(asked).toEqual(taglineSteps);
  });

  it("with a model and a budget: the plan comes before any call, and the budget is not exceeded", async () => {
    models.setRecordings([
      {
        name: "tagline verdict",
        match: { schemaName: "change_verdicts" },
        response: { json: { tagline: { verdict: "material", reason: "A new tagline signals repositioning." } } },
      },
    ]);
    await saveDraftDefinition(t.db, { userId, trackerId, definition: definitionWith(0.05, "The tagline, reworded") });
    let requestsAtPlan = -1;
    const model = fixtureModel(models.url);
    const result = await replayTracker(
      t.db,
      { userId, trackerId, definition: "draft", modelBudget: 2, planOnly: false },
      { onPlan: () => (requestsAtPlan = models.requests.length) },
      { models: { filler: model, judge: model } },
    );
    expect(requestsAtPlan).toBe(0);
    expect(result.modelCalls).toBe(2);
    expect(models.requests.filter((r) => r.summary.schemaName === "change_verdicts")).toHaveLength(2);
    const decidedByAgent = result.replayed.filter((e) => e.decisions.tagline?.decidedBy === "agent");
    expect(decidedByAgent).toHaveLength(2);
    expect(result.wouldAsk).toBe(result.plan.modelCallsNeeded - 2);
    const usage = await t.db.modelUsage.findMany({ where: { trackerId, kind: "replay" } });
    expect(usage.reduce((n, u) => n + u.modelCalls, 0)).toBe(2);
  });

  it("a period replays from the capture just before it, and can be cancelled", async () => {
    const from = dayOf(20);
    const to = dayOf(29);
    await saveDraftDefinition(t.db, { userId, trackerId, definition: definitionWith(0.05) });
    const period = await replayTracker(
      t.db,
      { userId, trackerId, definition: "draft", modelBudget: 0, planOnly: false, from, to },
      {},
      { models: { filler: null, judge: null } },
    );
    expect(period.plan.captures).toBe(10);
    const steps = period.replayed.map((e) => stepOfRun.get(e.runId) as number);
    expect(steps.every((s) => s >= 20 && s <= 29)).toBe(true);
    expect(period.replayed.some((e) => e.materiality === "baseline")).toBe(false);
    expect(period.recorded.every((e) => (stepOfRun.get(e.runId) as number) >= 20)).toBe(true);

    const abort = new AbortController();
    const progress: number[] = [];
    const cancelled = await replayTracker(
      t.db,
      { userId, trackerId, definition: "draft", modelBudget: 0, planOnly: false },
      {
        signal: abort.signal,
        onProgress: (done) => {
          progress.push(done);
          if (done === 10) abort.abort();
        },
      },
      { models: { filler: null, judge: null } },
    );
    expect(cancelled.cancelled).toBe(true);
    expect(progress.at(-1)).toBe(10);
    expect(cancelled.replayed.every((e) => (stepOfRun.get(e.runId) as number) < 10)).toBe(true);
  });

  it("another person's tracker is NOT_FOUND, and from after to is refused", async () => {
    const other = await t.db.user.create({ data: { email: "someone-else@example.test", name: "Other" } });
    await expect(
      replayTracker(t.db, { userId: other.id, trackerId, modelBudget: 0, planOnly: true }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      replayTracker(t.db, { userId, trackerId, modelBudget: 0, planOnly: true, from: dayOf(5), to: dayOf(1) }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("lock with history: re-judged entries are recorded beside the originals, once, with no notification", async () => {
    await expect(rejudgeHistory(t.db, { userId, trackerId })).rejects.toMatchObject({ code: "PRECONDITION_FAILED" });
    await saveDraftDefinition(t.db, { userId, trackerId, definition: definitionWith(0.1) });
    await lockDefinition(t.db, { userId, trackerId });
    const changesBefore = await t.db.entityChange.findMany({ where: { trackerId }, orderBy: { id: "asc" } });
    const outboxBefore = await t.db.changeOutbox.count();

    const first = await rejudgeHistory(t.db, { userId, trackerId });
    const expected = expectedUnder(0.1);
    expect(first).toMatchObject({ version: 2, captures: STEPS, recorded: expected.size });
    expect(first.summary).toContain("under v2");
    const history = await getRejudgedHistory(t.db, { userId, trackerId });
    expect(history.version).toBe(2);
    expect(new Map(history.entries.map((e) => [stepOfRun.get(e.runId), e.materiality]))).toEqual(expected);

    // The timeline of record is untouched and nobody is notified of old pages.
    expect(await t.db.entityChange.findMany({ where: { trackerId }, orderBy: { id: "asc" } })).toEqual(changesBefore);
    expect(await t.db.changeOutbox.count()).toBe(outboxBefore);

    const again = await rejudgeHistory(t.db, { userId, trackerId });
    expect(again.recorded).toBe(0);
    expect(again.summary).toMatch(/already re-judged/);
    expect(await t.db.rejudgedChange.count({ where: { trackerId } })).toBe(expected.size);

    const other = await t.db.user.create({ data: { email: "third@example.test", name: "Third" } });
    await expect(getRejudgedHistory(t.db, { userId: other.id, trackerId })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(rejudgeHistory(t.db, { userId: other.id, trackerId })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createCaller } from "@/server/api/root";
import { createApiToken } from "@/server/api-tokens";
import { requestEnhancement } from "@/server/enhancement/enhancement-manager";
import { resetEnvForTests } from "@/server/env";
import { getFeed } from "@/server/feed/get-feed";
import { refreshTracker } from "@/server/intelligence/refresh";
import { createSetupSession, getSetupState } from "@/server/intelligence/setup";
import { touchLastActive } from "@/server/settings/user-settings";
import { getCurrentState, queryTimeline } from "@/server/timeline";
import { getUsageThisMonth, monthOf } from "@/server/usage";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * docs/design.md §9: every model path records its calls and tokens per person (refresh runs on RefreshRun; the setup
 * drafter and the feed enhancement in the ModelUsage ledger), "usage this month" reads them back per tracker, and
 * a spent monthly budget (AI_MONTHLY_TOKEN_BUDGET) stops model calls before they are made — counted at the fixture
 * model server, which reports fixed token counts per recording.
 */

const page = (price: string, tagline: string) =>
  `<!doctype html><html><head><title>Rival</title><link rel="canonical" href="/rival"></head>
<body><main><p>Espresso <span id="price">${price}</span></p><p id="tagline">${tagline}</p></main></body></html>`;

/** price by code; tagline filled by the model and judged by it. */
const modelDefinition = {
  fields: [
    { name: "price", type: "number", description: "Espresso price", extractor: { kind: "css", selector: "#price" } },
    { name: "tagline", type: "string", description: "The café's tagline" },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 }, tagline: { kind: "ask_agent" } },
};
/** Everything by code: no model call ever. */
const codeDefinition = {
  fields: [{ name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

const FILL = { promptTokens: 200, completionTokens: 40 };
const JUDGE = { promptTokens: 100, completionTokens: 20 };
const DRAFT_HELLO = { promptTokens: 120, completionTokens: 30 };
const DRAFT_BOUND = { promptTokens: 80, completionTokens: 20 };
const ENHANCE = { promptTokens: 500, completionTokens: 100 };
const sum = (...u: { promptTokens: number; completionTokens: number }[]) =>
  u.reduce((n, x) => n + x.promptTokens + x.completionTokens, 0);

let t: TTestDb;
let site: TFixtureSite;
let server: TModelServer;
let alice: string;
let bob: string;
let rival: string;
let boundTrackerId: string;

beforeAll(async () => {
  [t, site, server] = await Promise.all([createTestDb(), startFixtureSite(), startModelServer()]);
  vi.stubEnv("AI_PROVIDER", "rules");
  resetEnvForTests();
  alice = (await t.db.user.create({ data: { name: "Alice", email: "alice@example.test", role: "owner" } })).id;
  bob = (await t.db.user.create({ data: { name: "Bob", email: "bob@example.test" } })).id;
  site.setPage("/rival", { body: page("3.00", "Coffee, done right") });
  site.setPage("/shop", { body: `<main><span id="price">10</span></main>` });
  rival = (
    await createActiveTracker(t.db, {
      userId: alice,
      decision: "Is Rival repositioning?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/rival") },
      definition: modelDefinition,
    })
  ).tracker.id;
});
/** The model's recorded answers; the fill answers with `tagline`, so a changed page means a changed tagline. */
const recordingsFor = (tagline: string) => [
  {
    name: "fill",
    match: { schemaName: "tracker_record" },
    response: { json: { tagline, notable_signals: [] }, usage: FILL },
  },
  {
    name: "judge",
    match: { schemaName: "change_verdicts" },
    response: { json: { tagline: { verdict: "material", reason: "A new positioning." } }, usage: JUDGE },
  },
  { name: "draft-hello", match: { user: "Just say hello" }, response: { text: "Hello!", usage: DRAFT_HELLO } },
  {
    name: "draft-bound",
    match: { user: "What do you think so far" },
    response: { text: "It looks fine to me.", usage: DRAFT_BOUND },
  },
  {
    name: "enhance",
    match: { schemaName: "feed_enhancement" },
    response: { json: { slotFills: [], syntheticItems: [], suppress: [], rankingHints: [] }, usage: ENHANCE },
  },
];
beforeEach(() => server.setRecordings(recordingsFor("Coffee, done right")));
afterAll(async () => {
  vi.unstubAllEnvs();
  resetEnvForTests();
  await Promise.all([t?.close(), site?.close(), server?.close()]);
});

const model = () => fixtureModel(server.url);
const seams = () => ({
  models: { filler: model(), judge: model() },
  capabilityConfig: localCapabilityConfig([site.url]),
  maxModelRetries: 0,
});
const refreshOptions = () => ({ trigger: "manual" as const, ...seams() });
const fillAnswers = (tagline: string) => server.setRecordings(recordingsFor(tagline));
function setBudget(tokens: number | undefined) {
  if (tokens === undefined) vi.stubEnv("AI_MONTHLY_TOKEN_BUDGET", "");
  else vi.stubEnv("AI_MONTHLY_TOKEN_BUDGET", String(tokens));
  resetEnvForTests();
}

describe("every model path records what it spends, per person", () => {
  it("refresh runs, the setup drafter and the feed enhancement; usage this month reads them back per tracker", async () => {
    setBudget(undefined);
    // Refresh 1 (baseline): one fill call. Refresh 2 (tagline changed): fill + judge.
    fillAnswers("Coffee, done right");
    expect((await refreshTracker(t.db, rival, refreshOptions())).outcome).toBe("baseline");
    site.setPage("/rival", { body: page("3.00", "Now serving tea") });
    fillAnswers("Now serving tea");
    expect((await refreshTracker(t.db, rival, refreshOptions())).outcome).toBe("material");

    // A drafter turn before anything is bound, and one in a conversation bound (in rules mode) to a tracker.
    const unbound = await createSetupSession(t.db, { userId: alice });
    await setupTurn(t.db, {
      userId: alice,
      sessionId: unbound.id,
      text: "Just say hello",
      config: localCapabilityConfig([site.url]),
      model: model(),
    });
    const bound = await createSetupSession(t.db, { userId: alice });
    await setupTurn(t.db, {
      userId: alice,
      sessionId: bound.id,
      text: `Watch the shop's price ${site.urlFor("/shop")}`,
      config: localCapabilityConfig([site.url]),
      model: null,
    });
    boundTrackerId = (await getSetupState(t.db, { userId: alice, sessionId: bound.id })).tracker?.id ?? "";
    expect(boundTrackerId).not.toBe("");
    await setupTurn(t.db, {
      userId: alice,
      sessionId: bound.id,
      text: "What do you think so far?",
      config: localCapabilityConfig([site.url]),
      model: model(),
    });

    // The feed enhancement (the material change above gives the feed a slotted card).
    const now = new Date();
    await touchLastActive(t.db, alice, now);
    const items = (await getFeed(t.db, alice, { now, enhance: false })).items;
    expect(await requestEnhancement(t.db, alice, items, "", { now, model: model() })).toBe("enhanced");

    // Someone else's spending, and Alice's own from last month, are not Alice's this month.
    const bobs = await createActiveTracker(t.db, {
      userId: bob,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/shop") },
      definition: codeDefinition,
    });
    await t.db.refreshRun.create({
      data: { trackerId: bobs.tracker.id, trigger: "manual", status: "completed", modelCalls: 3, inputTokens: 9000 },
    });
    const lastMonth = new Date(monthOf(now).from.getTime() - 86_400_000);
    await t.db.refreshRun.create({
      data: {
        trackerId: rival,
        trigger: "cron",
        status: "completed",
        modelCalls: 5,
        inputTokens: 7000,
        createdAt: lastMonth,
      },
    });

    expect(server.requests.map((r) => r.matched)).toEqual([
      "fill",
      "fill",
      "judge",
      "draft-hello",
      "draft-bound",
      "enhance",
    ]);
    const ledger = await t.db.modelUsage.findMany({ where: { userId: alice }, orderBy: { createdAt: "asc" } });
    expect(ledger.map((r) => [r.kind, r.trackerId, r.modelCalls, r.inputTokens, r.outputTokens])).toEqual([
      ["setup", null, 1, DRAFT_HELLO.promptTokens, DRAFT_HELLO.completionTokens],
      ["setup", boundTrackerId, 1, DRAFT_BOUND.promptTokens, DRAFT_BOUND.completionTokens],
      ["enhancement", null, 1, ENHANCE.promptTokens, ENHANCE.completionTokens],
    ]);

    const usage = await getUsageThisMonth(t.db, { userId: alice });
    expect(usage.trackers).toEqual([
      {
        trackerId: rival,
        decision: "Is Rival repositioning?",
        status: "active",
        refreshes: 2,
        modelCalls: 3,
        tokens: sum(FILL, FILL, JUDGE),
      },
      {
        trackerId: boundTrackerId,
        decision: expect.any(String),
        status: "draft",
        refreshes: 0,
        modelCalls: 1,
        tokens: sum(DRAFT_BOUND),
      },
    ]);
    expect(usage.feed).toEqual({ modelCalls: 1, tokens: sum(ENHANCE) });
    expect(usage.unboundSetup).toEqual({ modelCalls: 1, tokens: sum(DRAFT_HELLO) });
    const total = sum(FILL, FILL, JUDGE, DRAFT_BOUND, ENHANCE, DRAFT_HELLO);
    expect(usage.total).toEqual({ refreshes: 2, modelCalls: 6, tokens: total });
    expect(usage.budget).toMatchObject({
      limitTokens: null,
      spentTokens: total,
      remainingTokens: null,
      exhausted: false,
    });

    // The Settings procedure answers the same for Alice, and only Bob's for Bob.
    setBudget(total + 1000);
    const viaTrpc = await createCaller(
      testTrpcContext(t.db, { id: alice, name: "Alice", email: "", role: "owner" }),
    ).settings.usage();
    expect(viaTrpc.trackers).toEqual(usage.trackers);
    expect(viaTrpc.budget).toMatchObject({ limitTokens: total + 1000, spentTokens: total, remainingTokens: 1000 });
    const bobsUsage = await createCaller(
      testTrpcContext(t.db, { id: bob, name: "Bob", email: "", role: "member" }),
    ).settings.usage();
    expect(bobsUsage.trackers.map((x) => x.trackerId)).toEqual([bobs.tracker.id]);
    expect(bobsUsage.total.tokens).toBe(9000);
  });
});

describe("a spent monthly budget stops model calls before they are made", () => {
  beforeEach(() => {
    // Alice has spent more than this (previous test); Bob's 9000 this month are his own.
    setBudget(1000);
  });

  it("refresh: the run fails with BUDGET_EXCEEDED, no request reaches the model, the state is kept", async () => {
    const before = await t.db.trackedEntity.findFirstOrThrow({ where: { trackerId: rival } });
    const stateBefore = await getCurrentState(t.db, before.id);
    const changesBefore = (await queryTimeline(t.db, { trackerId: rival })).items.length;
    site.setPage("/rival", { body: page("3.50", "Tea and cake") });
    const requests = server.requests.length;

    const result = await refreshTracker(t.db, rival, refreshOptions());
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("BUDGET_EXCEEDED");
    expect(result.error?.message).toMatch(
      /^Your monthly AI budget \(1,000 tokens\) is spent: [\d,]+ used this month\. Model calls resume on \d{1,2} \w+ \(UTC\)\.$/,
    );
    expect(result.modelCalls).toBe(0);
    expect(server.requests.length).toBe(requests);
    expect(await getCurrentState(t.db, before.id)).toEqual(stateBefore);
    expect((await queryTimeline(t.db, { trackerId: rival })).items).toHaveLength(changesBefore);
    const run = await t.db.refreshRun.findUniqueOrThrow({ where: { id: result.runId } });
    expect(run.steps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ step: "crawl", status: "ok" }),
        expect.objectContaining({ step: "fill", status: "failed" }),
      ]),
    );
  });

  it("API refresh: the run in the answer carries the same clear error", async () => {
    const token = (await createApiToken(t.db, { userId: alice, name: "ci" })).token;
    const requests = server.requests.length;
    const response = await handleRestRequest(
      new Request(`http://app/api/v1/trackers/${rival}/refresh`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      }),
      { db: t.db, refreshSeams: seams() },
    );
    const body = (await response.json()) as { run: { status: string; error: { code: string; message: string } } };
    expect(body.run.status).toBe("failed");
    expect(body.run.error.code).toBe("BUDGET_EXCEEDED");
    expect(body.run.error.message).toMatch(/monthly AI budget/);
    expect(server.requests.length).toBe(requests);
  });

  it("code-only work goes on: a tracker whose fields and rules are all code still refreshes", async () => {
    const { tracker } = await createActiveTracker(t.db, {
      userId: alice,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/shop") },
      definition: codeDefinition,
    });
    const requests = server.requests.length;
    expect((await refreshTracker(t.db, tracker.id, refreshOptions())).outcome).toBe("baseline");
    site.setPage("/shop", { body: `<main><span id="price">20</span></main>` });
    expect((await refreshTracker(t.db, tracker.id, refreshOptions())).outcome).toBe("material");
    expect(server.requests.length).toBe(requests);
  });

  it("setup: the reply says the budget is spent and answers in rules mode, without a model call", async () => {
    const session = await createSetupSession(t.db, { userId: alice });
    const requests = server.requests.length;
    const turn = await setupTurn(t.db, {
      userId: alice,
      sessionId: session.id,
      text: `Watch the shop's price ${site.urlFor("/shop")}`,
      config: localCapabilityConfig([site.url]),
      model: model(),
    });
    expect(turn.replies[0]?.text).toMatch(/^Your monthly AI budget \(1,000 tokens\) is spent.*built-in rules\.$/);
    expect(dataPart(turn.reply, "draft")).toMatchObject({ status: "saved", version: 1 });
    expect(server.requests.length).toBe(requests);
    expect(await t.db.modelUsage.count({ where: { userId: alice, kind: "setup" } })).toBe(2);
  });

  it("feed enhancement: skipped without a model call", async () => {
    const now = new Date();
    await touchLastActive(t.db, alice, now);
    // New feed input (another material change) so the cached enhancement does not answer by itself.
    await t.db.feedEnhancement.update({ where: { userId: alice }, data: { inputHash: "stale" } });
    const items = (await getFeed(t.db, alice, { now, enhance: false })).items;
    const requests = server.requests.length;
    expect(await requestEnhancement(t.db, alice, items, "", { now, model: model() })).toBe("over_budget");
    expect(server.requests.length).toBe(requests);
  });

  it("is per person: the same budget stops Bob (9,000 spent) and not Alice (1,450 spent)", async () => {
    setBudget(5000);
    const { tracker } = await createActiveTracker(t.db, {
      userId: bob,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/rival") },
      definition: modelDefinition,
    });
    const requests = server.requests.length;
    expect((await refreshTracker(t.db, tracker.id, refreshOptions())).error?.code).toBe("BUDGET_EXCEEDED");
    expect(server.requests.length).toBe(requests);
    // Alice's changed page (the refused refresh above left it unread) is read and judged now.
    fillAnswers("Tea and cake");
    const alices = await refreshTracker(t.db, rival, refreshOptions());
    expect(alices).toMatchObject({ status: "completed", outcome: "material", modelCalls: 2 });
    expect(server.requests.slice(requests).map((r) => r.matched)).toEqual(["fill", "judge"]);
  });
});

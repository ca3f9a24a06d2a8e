import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TLanguageModel } from "@/server/ai";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { feedFixture, feedSetDefinition, RSS } from "../helpers/feed-set";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * The model, when it is on, sees only the members that changed (docs/sets.md, "How the refresh runs a set"): with a
 * member field left to the agent and the real @ai-sdk/openai client on the fixture model server, an unchanged set asks
 * nothing, and one edited entry among five is one judge call whose prompt carries that entry and no other.
 */

let t: TTestDb;
let site: TFixtureSite;
let server: TModelServer;
let model: TLanguageModel;

beforeAll(async () => {
  ({ t, site } = await openSiteWorld());
  server = await startModelServer();
  model = fixtureModel(server.url) as TLanguageModel;
});
afterAll(async () => {
  await server?.close();
  await closeSiteWorld(t, site);
});

const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: model, judge: model },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
});
const judgeCalls = () => server.requests.filter((r) => r.summary.schemaName === "change_verdicts");

describe("a set with a member field left to the agent", () => {
  it("asks the judge about the changed member only", async () => {
    server.setRecordings([
      {
        name: "title verdict",
        match: { schemaName: "change_verdicts" },
        response: { json: { title: { verdict: "material", reason: "A broader rollout is news." } } },
      },
    ]);
    const path = "/set-model/changelog.rss";
    const feed = feedFixture("changelog.rss.xml");
    site.setPage(path, { body: feed, contentType: RSS });
    const definition = feedSetDefinition();
    const { tracker } = await createActiveTracker(t.db, {
      capability: "feed.items",
      capabilityInput: { url: site.urlFor(path) },
      definition: { ...definition, materiality: { ...definition.materiality, title: { kind: "ask_agent" } } },
      decision: "What did the rival ship this month?",
    });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("baseline");
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("unchanged");
    expect(judgeCalls()).toHaveLength(0);

    const edited = feed.replace("Node.js 24 is the default runtime", "Node.js 24 is the default runtime everywhere");
    site.setPage(path, { body: edited, contentType: RSS });
    const run = await refreshTracker(t.db, tracker.id, options());
    expect(run).toMatchObject({ status: "completed", outcome: "material", modelCalls: 1 });
    const calls = judgeCalls();
    expect(calls).toHaveLength(1);
    const prompt = JSON.stringify(calls[0]?.body);
    expect(prompt).toContain("Node.js 24 is the default runtime everywhere");
    for (const other of [
      "Build cache is now shared",
      "Deploy logs: search",
      "Two new edge regions",
      "Deprecation: the v1",
    ])
      expect(prompt).not.toContain(other);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveContextValues, saveContextFile } from "@/server/context";
import { ZTrackerDefinitionSchema } from "@/server/intelligence/definition";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { queryTimeline } from "@/server/timeline";
import { boundValueDefinition, rivalPage } from "../fixtures/context-example";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { makePdf, utf8 } from "../helpers/context-fixtures";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * Context rules (docs/context-files.md, "Values bound by code"): "material when their price drops below ours" decided by code through a value bound from a
 * context file — the seed's example again, with no model call at all (the fixture model server has no recording
 * and its log stays empty).
 */

const page = rivalPage;
const definitionWith = boundValueDefinition;

let t: TTestDb;
let site: TFixtureSite;
let models: TModelServer;
let userId: string;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  models = await startModelServer({ recordings: [] });
  userId = (await t.db.user.create({ data: { name: "Ana", email: "ana@example.test" } })).id;
});
afterAll(async () => {
  await site?.close();
  await models?.close();
  await t?.close();
});

function options(): TRefreshOptions {
  const model = fixtureModel(models.url);
  return {
    trigger: "manual",
    models: { filler: model, judge: model },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
    maxModelRetries: 0,
  };
}

async function trackerFor(path: string, binding: Record<string, string>) {
  return (
    await createActiveTracker(t.db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url: `${site.url}${path}` },
      definition: definitionWith(binding),
      decision: "Are we being undercut?",
    })
  ).tracker.id;
}

const attach = (trackerId: string, name: string, bytes: Uint8Array) =>
  saveContextFile(t.db, { userId, trackerId, name, mediaType: "", bytes });

describe("a code rule against a value bound from a context file", () => {
  it("12.00 → 9.90 is noise without the file and material with it, with zero model calls", async () => {
    const trackerId = await trackerFor("/bound", { label: "our price" });
    site.setPage("/bound", { body: page("12.00") });
    await refreshTracker(t.db, trackerId, options());

    site.setPage("/bound", { body: page("9.90") });
    expect(await refreshTracker(t.db, trackerId, options())).toMatchObject({ outcome: "noise", modelCalls: 0 });
    site.setPage("/bound", { body: page("12.00") });
    expect(await refreshTracker(t.db, trackerId, options())).toMatchObject({ outcome: "noise", modelCalls: 0 });

    const { file } = await attach(
      trackerId,
      "price-list.pdf",
      await makePdf([["Price list"], ["Our price is 10.00 USD"]]),
    );
    site.setPage("/bound", { body: page("9.90") });
    const material = await refreshTracker(t.db, trackerId, options());
    expect(material).toMatchObject({ outcome: "material", modelCalls: 0 });
    expect(models.requests).toHaveLength(0);

    const [change] = (await queryTimeline(t.db, { trackerId })).items;
    expect(change?.decisions.price).toMatchObject({ verdict: "material", decidedBy: "code", rule: "context" });
    expect(change?.decisions.price?.reason).toBe(
      "price: $12.00 → $9.90 dropped below our_price $10.00 (price-list.pdf, p. 2) → material",
    );
    expect(change?.citations).toEqual([
      {
        fileId: file.id,
        fileName: "price-list.pdf",
        chunkId: null,
        location: "p. 2",
        quote: "Our price is 10.00 USD",
        fields: ["price"],
        cited: true,
      },
    ]);

    // Reproducible: the same move decided again gives the same verdict and reason.
    site.setPage("/bound", { body: page("12.00") });
    await refreshTracker(t.db, trackerId, options());
    site.setPage("/bound", { body: page("9.90") });
    await refreshTracker(t.db, trackerId, options());
    const [again] = (await queryTimeline(t.db, { trackerId })).items;
    expect(again?.decisions.price?.reason).toBe(change?.decisions.price?.reason);
    expect(models.requests).toHaveLength(0);
  });

  it("reads a CSV cell by row and column label", async () => {
    const trackerId = await trackerFor("/csv", { label: "Pro", column: "price", file: "prices.csv" });
    await attach(trackerId, "prices.csv", utf8("plan,price\nStarter,5.00\nPro,10.00\nTeam,25.00\n"));
    expect(
      await resolveContextValues(t.db, {
        userId,
        trackerId,
        values: [{ name: "our_price", label: "Pro", column: "price", file: "prices.csv" }],
      }),
    ).toEqual({
      our_price: {
        value: 10,
        fileId: expect.any(String),
        fileName: "prices.csv",
        location: "row 3, price",
        quote: "Pro — price: 10.00",
      },
    });
    site.setPage("/csv", { body: page("10.50") });
    await refreshTracker(t.db, trackerId, options());
    site.setPage("/csv", { body: page("9.99") });
    expect(await refreshTracker(t.db, trackerId, options())).toMatchObject({ outcome: "material", modelCalls: 0 });
  });

  it("resolves only the person's own tracker's files", async () => {
    const other = (await t.db.user.create({ data: { name: "Bo", email: "bo@example.test" } })).id;
    const trackerId = await trackerFor("/scoped", { label: "our price" });
    const values = [{ name: "our_price", label: "our price" }];
    // Ana's other tracker states "Our price is 10.00": not this tracker's.
    expect(await resolveContextValues(t.db, { userId, trackerId, values })).toEqual({ our_price: null });
    await attach(trackerId, "note.txt", utf8("our price is 7.00"));
    expect((await resolveContextValues(t.db, { userId, trackerId, values })).our_price?.value).toBe(7);
    // Someone else naming Ana's tracker: nothing.
    expect(await resolveContextValues(t.db, { userId: other, trackerId, values })).toEqual({ our_price: null });
  });

  it("the definition refuses a rule on a missing value or a text field", () => {
    const bad = {
      ...definitionWith({ label: "our price" }),
      contextRules: [{ field: "price", value: "their_price", when: "drops_below" }],
    };
    const result = ZTrackerDefinitionSchema.safeParse(bad);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain('\\"their_price\\" is not one of the contextValues');
  });
});

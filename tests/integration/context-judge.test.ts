import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteContextFile, listContextFiles, saveContextFile } from "@/server/context";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { queryTimeline } from "@/server/timeline";
import { askAgentDefinition, OUR_PRICE, rivalPage, undercutVerdict } from "../fixtures/context-example";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { utf8 } from "../helpers/context-fixtures";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * The seed's example (docs/design.md §3, docs/context-files.md): a competitor's price moving 12.00 → 9.90 means little by
 * itself; with the person's own file saying "our price is 10.00" it means they now undercut us. Real refreshes
 * against the fixture site, the real @ai-sdk/openai client against the fixture model server, whose request log
 * shows what reached the judge.
 */

const page = rivalPage;
const definition = askAgentDefinition;

let t: TTestDb;
let site: TFixtureSite;
let models: TModelServer;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  models = await startModelServer({
    recordings: [
      {
        name: "judge with our price list: they now undercut us",
        match: { schemaName: "change_verdicts", prompt: OUR_PRICE },
        response: { json: undercutVerdict },
      },
      {
        name: "judge without context: a price cut alone",
        match: { schemaName: "change_verdicts" },
        response: {
          json: { price: { verdict: "noise", reason: "A price move alone does not bear on the decision." } },
        },
      },
    ],
  });
});
afterAll(async () => {
  await site?.close();
  await models?.close();
  await t?.close();
});

function options(extra: Partial<TRefreshOptions> = {}): TRefreshOptions {
  const model = fixtureModel(models.url);
  return {
    trigger: "manual",
    models: { filler: model, judge: model },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 2000 }),
    maxModelRetries: 0,
    ...extra,
  };
}

async function tracker(userId: string, path: string) {
  return (
    await createActiveTracker(t.db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url: `${site.url}${path}` },
      definition,
      decision: "Are we being undercut on the Pro plan?",
    })
  ).tracker.id;
}

const attach = (userId: string, trackerId: string, name: string, text: string) =>
  saveContextFile(t.db, { userId, trackerId, name, mediaType: "text/plain", bytes: utf8(text) });

/** The judge prompts the fixture model server received since `from`. */
const judgePrompts = (from: number) =>
  models.requests
    .slice(from)
    .filter((r) => r.summary.schemaName === "change_verdicts")
    .map((r) => r.summary.messages.map((m) => m.text).join("\n"));

describe("the judge consults the tracker's context files", () => {
  it("12.00 → 9.90 is noise without our price list and material with it, citing the file", async () => {
    const ana = (await t.db.user.create({ data: { name: "Ana", email: "ana@example.test" } })).id;
    const bo = (await t.db.user.create({ data: { name: "Bo", email: "bo@example.test" } })).id;
    const trackerId = await tracker(ana, "/rival");
    // The same words in another of Ana's trackers and in Bo's tracker: never retrieved for this one.
    await attach(ana, await tracker(ana, "/elsewhere"), "other-prices.txt", `${OUR_PRICE} (another product)`);
    await attach(bo, await tracker(bo, "/rival"), "bo-prices.txt", `${OUR_PRICE} (Bo's shop)`);

    site.setPage("/rival", { body: page("12.00") });
    expect(await refreshTracker(t.db, trackerId, options())).toMatchObject({ outcome: "baseline", modelCalls: 0 });

    // No file of its own: the judge sees no context and the move is noise.
    site.setPage("/rival", { body: page("9.90") });
    let from = models.requests.length;
    const noise = await refreshTracker(t.db, trackerId, options());
    expect(noise).toMatchObject({ status: "completed", outcome: "noise", modelCalls: 1 });
    expect(judgePrompts(from)).toHaveLength(1);
    expect(judgePrompts(from)[0]).not.toContain(OUR_PRICE);
    expect(judgePrompts(from)[0]).not.toContain("Excerpts from the user's context files");

    // Back to 12.00 (noise again), then the person attaches their price list.
    site.setPage("/rival", { body: page("12.00") });
    expect(await refreshTracker(t.db, trackerId, options())).toMatchObject({ outcome: "noise" });
    const { file } = await attach(ana, trackerId, "price-list.txt", `Price list 2026\n\nPro plan: ${OUR_PRICE} USD.\n`);

    site.setPage("/rival", { body: page("9.90") });
    from = models.requests.length;
    const material = await refreshTracker(t.db, trackerId, options());
    expect(material).toMatchObject({ status: "completed", outcome: "material", modelCalls: 1 });
    const [prompt] = judgePrompts(from);
    // The retrieved chunk reached the judge, wrapped as untrusted data and labelled with its file.
    expect(prompt).toMatch(/source="context file excerpt C1: price-list\.txt, lines 1–3">>>\n[^<]*our price is 10\.00/);
    expect(prompt).not.toContain("another product");
    expect(prompt).not.toContain("Bo's shop");

    const [change] = (await queryTimeline(t.db, { trackerId })).items;
    expect(change?.materiality).toBe("material");
    expect(change?.decisions.price).toMatchObject({ verdict: "material", decidedBy: "agent" });
    expect(change?.citations).toEqual([
      {
        fileId: file.id,
        fileName: "price-list.txt",
        chunkId: expect.any(String),
        location: "lines 1–3",
        quote: OUR_PRICE,
        fields: ["price"],
        cited: true,
      },
    ]);
    const listed = await listContextFiles(t.db, { userId: ana, trackerId });
    expect(listed.files.map((f) => [f.name, f.citedBy])).toEqual([["price-list.txt", 1]]);

    // Deleting the file keeps the reason readable: the quote was copied onto the change.
    await deleteContextFile(t.db, { userId: ana, trackerId, fileId: file.id });
    const [kept] = (await queryTimeline(t.db, { trackerId })).items;
    expect(kept?.citations[0]).toMatchObject({ fileName: "price-list.txt", quote: OUR_PRICE, cited: true });
  });

  it("rules mode retrieves the files too and lists them beside the change it leaves to the person", async () => {
    const cy = (await t.db.user.create({ data: { name: "Cy", email: "cy@example.test" } })).id;
    const trackerId = await tracker(cy, "/rules");
    await attach(cy, trackerId, "prices.md", `# Our prices\n\nPro plan: ${OUR_PRICE} USD.`);
    site.setPage("/rules", { body: page("12.00") });
    const rules = options({ models: { filler: null, judge: null } });
    await refreshTracker(t.db, trackerId, rules);
    site.setPage("/rules", { body: page("9.90") });
    const from = models.requests.length;
    expect(await refreshTracker(t.db, trackerId, rules)).toMatchObject({ outcome: "notable", modelCalls: 0 });
    expect(models.requests.length).toBe(from);
    const [change] = (await queryTimeline(t.db, { trackerId })).items;
    expect(change?.citations).toEqual([
      expect.objectContaining({
        fileName: "prices.md",
        cited: false,
        fields: ["price"],
        quote: `Pro plan: ${OUR_PRICE} USD.`,
      }),
    ]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TLanguageModel } from "@/server/ai";
import { saveContextFile } from "@/server/context";
import { createSetupSession, getSetupState } from "@/server/intelligence/setup";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { rivalPage } from "../fixtures/context-example";
import type { TRecordingInput } from "../fixtures/model-server/recordings";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { utf8 } from "../helpers/context-fixtures";
import { createTestDb, type TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * Every chat turn answered for what it asked, with the drafter model (real @ai-sdk/openai client, fixture model
 * server; docs/context-files.md, "While drafting"): files attached since the last turn are taken in by code before the
 * model runs; an edit the model left aside while talking about the file is applied by code in the same turn; a model's
 * binding of "Pro plan: our price 16.00" to the Starter field is refused with the reason and repaired; a line whose
 * field is unclear is asked about, never bound on a guess.
 */

let t: TTestDb;
let site: TFixtureSite;
let server: TModelServer;
let model: TLanguageModel;
let userId: string;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  server = await startModelServer();
  model = fixtureModel(server.url) as TLanguageModel;
  userId = (await ensureLocalUser(t.db)).id;
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await t?.close();
});

const turn = (sessionId: string, text: string) =>
  setupTurn(t.db, { userId, sessionId, text, config: localCapabilityConfig([site.url]), model });

const plansPage = `<!doctype html><html><head><title>Acme plans</title></head><body><main><h1>Acme plans</h1>
  <div class="plan"><h3>Starter</h3><p id="starter">$19</p></div>
  <div class="plan"><h3>Pro</h3><p id="pro">$49</p></div></main></body></html>`;

const money = (name: string, description: string, selector: string) => ({
  name,
  type: "money",
  currency: "USD",
  description,
  extractor: { kind: "css", selector },
});
const twoPlans = {
  fields: [
    money("starter_price", "The Starter plan's monthly price", "#starter"),
    money("pro_price", "The Pro plan's monthly price", "#pro"),
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { starter_price: { kind: "numeric", relative: 0.01 }, pro_price: { kind: "numeric", relative: 0.01 } },
};
const withBinding = (definition: Record<string, unknown>, field: string, value: string) => ({
  ...definition,
  contextValues: [{ name: value, label: "our price", file: "prices.txt" }],
  contextRules: [{ field, value, when: "drops_below" }],
});

/** The drafter binding the page and proposing `definition` for the first message. */
function bindingTurn(tag: string, decision: string, url: string, definition: unknown): TRecordingInput[] {
  const call = (name: string, args: Record<string, unknown>) => ({
    toolCalls: [{ id: `${tag}-${name}`, name, arguments: args }],
  });
  return [
    {
      name: `${tag}-summary`,
      match: { user: decision, prompt: '"saved":"draft' },
      response: { text: "Drafted. Look good?" },
    },
    {
      name: `${tag}-propose`,
      match: { user: decision, prompt: '"sample":"' },
      response: call("proposeDefinition", { definition }),
    },
    { name: `${tag}-fetch`, match: { user: decision, prompt: "call fetchSample" }, response: call("fetchSample", {}) },
    {
      name: `${tag}-bind`,
      match: { user: decision, afterToolResult: false },
      response: call("bindCapability", { capability: "web.scrape", url, title: decision }),
    },
  ];
}

async function boundSession(tag: string, decision: string, path: string, body: string, definition: unknown) {
  site.setPage(path, { body });
  server.setRecordings(bindingTurn(tag, decision, site.urlFor(path), definition));
  const session = await createSetupSession(t.db, { userId });
  const first = await turn(session.id, `${decision} ${site.urlFor(path)}`);
  const trackerId = dataPart(first.reply, "sample")?.trackerId as string;
  expect(dataPart(first.reply, "draft")).toMatchObject({ status: "saved" });
  return { sessionId: session.id, trackerId };
}

const attach = (trackerId: string, text: string) =>
  saveContextFile(t.db, { userId, trackerId, name: "prices.txt", mediaType: "text/plain", bytes: utf8(text) });
const draftOf = async (sessionId: string) => (await getSetupState(t.db, { userId, sessionId })).draft?.definition;

describe("the drafter after an upload", () => {
  it("applies an edit the model left aside while it talked about the file, in the same turn", async () => {
    const definition = {
      fields: [money("price", "The rival's Pro plan monthly price", "#price")],
      identityRule: { kind: "canonical_url" },
      materiality: { price: { kind: "numeric", relative: 0.01 } },
    };
    const { sessionId, trackerId } = await boundSession(
      "ai-edit",
      "Is the rival undercutting us?",
      "/ai-file-edit/rival",
      rivalPage("12.00"),
      definition,
    );
    await attach(trackerId, "Price list 2026\nour price is 10.00 USD\n");
    server.setRecordings([
      {
        name: "talks-about-the-file",
        match: { user: "only if it drops more than 10 %" },
        response: { text: "Your price list says our price is 10.00 — I keep that in mind." },
      },
    ]);

    const reply = await turn(sessionId, "only if it drops more than 10 %");
    const text = reply.replies.map((b) => b.text).join("\n");
    expect(text).toContain("so I added price: material when it drops below our_price");
    expect(text).toContain("Your price list says our price is 10.00");
    expect(text).toContain("As you asked: price: material on a 10% drop or more (rises are noise).");
    const saved = await draftOf(sessionId);
    expect(saved?.materiality.price).toEqual({ kind: "numeric", relative: 0.1, direction: "down" });
    expect(saved?.contextRules).toEqual([{ field: "price", value: "our_price", when: "drops_below" }]);
    // The model was told what code had done with the file this turn.
    const system = server.requests.find((r) => r.matched === "talks-about-the-file")?.summary.system ?? "";
    expect(system).toContain("Already done by code with the files this turn");
  });

  it("refuses the model's binding of the Pro line to the Starter field, with the reason, and keeps the repair", async () => {
    const { sessionId, trackerId } = await boundSession(
      "ai-pro",
      "Are we undercut on either plan?",
      "/ai-file-edit/plans",
      plansPage,
      twoPlans,
    );
    await attach(trackerId, "Price list 2026\nPro plan: our price 16.00\n");
    const revise = (definition: unknown) => ({
      toolCalls: [
        { id: `revise-${Math.random().toString(36).slice(2)}`, name: "reviseDefinition", arguments: { definition } },
      ],
    });
    server.setRecordings([
      {
        name: "pro-summary",
        match: { user: "Use my price list", afterToolResult: true, prompt: '"saved":"draft v' },
        response: { text: "Your Pro price is now compared by code." },
      },
      {
        name: "pro-repair",
        match: { user: "Use my price list", afterToolResult: true },
        response: revise(withBinding(twoPlans, "pro_price", "our_pro_price")),
      },
      {
        name: "pro-to-starter",
        match: { user: "Use my price list", afterToolResult: false },
        response: revise(withBinding(twoPlans, "starter_price", "our_price")),
      },
    ]);

    await turn(sessionId, "Use my price list");
    expect(server.requests.map((r) => r.matched)).toEqual(
      expect.arrayContaining(["pro-to-starter", "pro-repair", "pro-summary"]),
    );
    const told = server.requests
      .find((r) => r.matched === "pro-repair")
      ?.summary.messages.map((m) => m.text)
      .join("\n");
    expect(told).toContain("“Pro plan: our price 16.00” in prices.txt is not about starter_price — it names pro_price");
    const saved = await draftOf(sessionId);
    expect(saved?.contextRules).toEqual([{ field: "pro_price", value: "our_pro_price", when: "drops_below" }]);
  });

  it("asks which field a line is about instead of letting a guess through", async () => {
    const starterAsPrice = {
      fields: [money("price", "The Starter plan's monthly price", "#starter")],
      identityRule: { kind: "canonical_url" },
      materiality: { price: { kind: "numeric", relative: 0.01 } },
    };
    const { sessionId, trackerId } = await boundSession(
      "ai-unclear",
      "Is Acme's Starter plan cheaper than ours?",
      "/ai-file-edit/starter",
      plansPage,
      starterAsPrice,
    );
    await attach(trackerId, "Pro plan: our price 16.00\n");
    server.setRecordings([
      {
        name: "unclear-asks",
        match: { user: "Compare it with my price list", afterToolResult: true },
        response: { text: "Your list gives the Pro price; is that the one to compare the Starter price with?" },
      },
      {
        name: "unclear-guess",
        match: { user: "Compare it with my price list", afterToolResult: false },
        response: {
          toolCalls: [
            {
              id: "unclear-revise",
              name: "reviseDefinition",
              arguments: { definition: withBinding(starterAsPrice, "price", "our_price") },
            },
          ],
        },
      },
    ]);

    const reply = await turn(sessionId, "Compare it with my price list");
    expect(reply.reply.metadata?.kind).toBe("question");
    const text = reply.replies.map((b) => b.text).join("\n");
    expect(text).toContain("Is price what that line is about?");
    const told = server.requests
      .find((r) => r.matched === "unclear-asks")
      ?.summary.messages.map((m) => m.text)
      .join("\n");
    expect(told).toContain("is not about price");
    expect((await draftOf(sessionId))?.contextRules ?? []).toEqual([]);
  });
});

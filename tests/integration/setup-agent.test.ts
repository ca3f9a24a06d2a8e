import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TLanguageModel } from "@/server/ai";
import { UNTRUSTED_BEGIN } from "@/server/ai";
import { createSetupSession, getSetupState } from "@/server/intelligence/setup";
import { getLockedDefinition } from "@/server/intelligence/tracker-store";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { SETUP_PRICING_HTML } from "../e2e/setup-pages";
import { setupRecordings } from "../e2e/setup-recordings";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/** The drafter agent (AI SDK tools, streamed) with the real @ai-sdk/openai client on the fixture model server. */

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
  site.setPage("/setup/acme/pricing", { body: SETUP_PRICING_HTML });
});
beforeEach(() => {
  server.setRecordings(setupRecordings(site.url));
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await t?.close();
});

const turn = (sessionId: string, text: string, allow: string[] = [site.url]) =>
  setupTurn(t.db, { userId, sessionId, text, config: localCapabilityConfig(allow), model });

describe("setup drafter agent", () => {
  it("binds, samples, streams the draft, revises on request and locks v1 on 'looks good'", async () => {
    const session = await createSetupSession(t.db, { userId });
    const first = await turn(
      session.id,
      `Tell me if Acme's pricing page undercuts our $49 plan — ${site.urlFor("/setup/acme/pricing")}`,
    );
    expect(dataPart(first.reply, "sample")).toMatchObject({ target: site.urlFor("/setup/acme/pricing") });
    // Streamed: the one draft part is updated in place, 1 then 2 fields, before it is saved.
    const partials = first.snapshots.flatMap((m) => {
      const draft = dataPart(m, "draft");
      return draft?.status === "streaming" ? [draft.view.fields.length] : [];
    });
    expect(partials).toContain(1);
    expect(partials).toContain(2);
    expect(first.reply.parts.filter((p) => p.type === "data-draft")).toHaveLength(1);
    expect(dataPart(first.reply, "draft")).toMatchObject({ status: "saved", version: 1 });
    expect(first.last?.text).toMatch(/Does it look good\?/);
    // The reply's text streamed: more than one distinct length before the end.
    const textLength = (m: (typeof first.snapshots)[number]) =>
      m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("").length;
    const lengths = new Set(first.snapshots.map(textLength).filter((n) => n > 0));
    expect(lengths.size).toBeGreaterThan(1);
    // The sample reached the model as untrusted data, inside a tool result.
    const proposeRequest = server.requests.find((r) => r.matched === "setup-journey-3-propose");
    expect(JSON.stringify(proposeRequest?.body)).toContain(UNTRUSTED_BEGIN);

    const revise = await turn(session.id, "add a field for the annual price");
    expect(dataPart(revise.reply, "draft")).toMatchObject({
      status: "saved",
      view: { fields: expect.arrayContaining([expect.objectContaining({ name: "annual_price" })]) },
    });
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    // The tracker is titled with the agent's wording of the decision, not the message with its address.
    expect(state.tracker?.decision).toBe("Does Acme's pricing undercut our $49 plan?");
    expect(state.draft?.definition.fields.map((f) => f.name)).toEqual([
      "pro_price",
      "team_price",
      "plan_names",
      "annual_price",
    ]);
    expect(state.messages).toHaveLength(4);

    const lock = await turn(session.id, "looks good");
    expect(dataPart(lock.reply, "locked")).toMatchObject({ version: 1 });
    const locked = await getLockedDefinition(t.db, state.tracker?.id ?? "");
    expect(locked?.definition.fields.map((f) => f.name)).toContain("annual_price");
    expect((await getSetupState(t.db, { userId, sessionId: session.id })).status).toBe("locked");
  });

  it("a message with no target gets a question back", async () => {
    const session = await createSetupSession(t.db, { userId });
    const r = await turn(session.id, "Tell me if Acme undercuts us");
    expect(r.last?.text).toMatch(/Which page should I watch/);
    expect((await getSetupState(t.db, { userId, sessionId: session.id })).tracker).toBeNull();
  });

  it("an unreachable address is reported in the chat by code, and the agent asks for another", async () => {
    const dead = "http://127.0.0.1:9/pricing";
    server.addRecording({
      name: "dead-3-ask",
      match: { user: "Watch the dead one", prompt: "do not retry" },
      response: { text: "I could not reach that page. Which other address should I watch?" },
    });
    server.addRecording({
      name: "dead-2-fetch",
      match: { user: "Watch the dead one", prompt: "call fetchSample" },
      response: { toolCalls: [{ id: "c2", name: "fetchSample", arguments: {} }] },
    });
    server.addRecording({
      name: "dead-1-bind",
      match: { user: "Watch the dead one", afterToolResult: false },
      response: {
        toolCalls: [{ id: "c1", name: "bindCapability", arguments: { capability: "web.scrape", url: dead } }],
      },
    });
    const session = await createSetupSession(t.db, { userId });
    const { replies } = await turn(session.id, `Watch the dead one ${dead}`, [site.url, "http://127.0.0.1:9"]);
    expect(replies.map((m) => m.kind)).toEqual(["error", "text"]);
    expect(replies[0]?.text).toMatch(/could not read http:\/\/127\.0\.0\.1:9\/pricing/);
    expect(replies[1]?.text).toMatch(/Which other address/);
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.tracker).toBeNull();
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a draft that fails validation is sent back once for repair, then reported in chat and never saved", async () => {
    const session = await createSetupSession(t.db, { userId });
    const r = await turn(session.id, `Watch the broken one ${site.urlFor("/setup/acme/pricing")}`);
    const error = r.replies.find((m) => m.kind === "error");
    expect(error?.text).toMatch(/did not pass validation, so nothing was saved/);
    expect(error?.text).toMatch(/money field needs a currency/);
    // What streamed onto the card was withdrawn, not left showing.
    expect(dataPart(r.reply, "draft")).toEqual({ status: "discarded" });
    const proposals = server.requests.filter((q) => String(q.matched).startsWith("setup-invalid-"));
    expect(proposals.map((q) => q.matched)).toEqual([
      "setup-invalid-1-bind",
      "setup-invalid-1b-fetch",
      "setup-invalid-2-propose",
      "setup-invalid-3-repair",
    ]);
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.draft).toBeNull();
    expect(state.status).toBe("open");

    // Still usable: the next request revises into a valid, saved draft.
    const next = await turn(session.id, "add a field for the annual price");
    expect(dataPart(next.reply, "draft")?.status).toBe("saved");
    const after = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(after.draft?.definition.fields.map((f) => f.name)).toContain("annual_price");
  });
});

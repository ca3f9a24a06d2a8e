import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TLanguageModel } from "@/server/ai";
import { UNTRUSTED_BEGIN } from "@/server/ai";
import { createSetupSession, getSetupState, handleSetupMessage, type TSetupEvent } from "@/server/intelligence/setup";
import { getLockedDefinition } from "@/server/intelligence/tracker-store";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { SETUP_PRICING_HTML } from "../e2e/setup-pages";
import { setupRecordings } from "../e2e/setup-recordings";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
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

async function turn(sessionId: string, text: string) {
  const events: TSetupEvent[] = [];
  await handleSetupMessage(t.db, {
    userId,
    sessionId,
    text,
    config: localCapabilityConfig([site.url]),
    emit: (e) => events.push(e),
    model,
  });
  const replies = events.flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [e.message] : []));
  return { events, replies, last: replies.at(-1) };
}

describe("setup drafter agent", () => {
  it("binds, samples, streams the draft, revises on request and locks v1 on 'looks good'", async () => {
    const session = await createSetupSession(t.db, { userId });
    const first = await turn(
      session.id,
      `Tell me if Acme's pricing page undercuts our $49 plan — ${site.urlFor("/setup/acme/pricing")}`,
    );
    expect(first.events.find((e) => e.type === "sample")).toMatchObject({ target: site.urlFor("/setup/acme/pricing") });
    const partials = first.events.flatMap((e) => (e.type === "draft-partial" ? [e.draft.fields.length] : []));
    // Streamed: the card sees 1, then 2, then 3 fields before the draft is saved.
    expect(partials).toContain(1);
    expect(partials).toContain(2);
    expect(first.events.find((e) => e.type === "draft")).toMatchObject({ version: 1 });
    expect(first.last?.parts[0]?.text).toMatch(/Does it look good\?/);
    // The sample reached the model as untrusted data, inside a tool result.
    const proposeRequest = server.requests.find((r) => r.matched === "setup-journey-3-propose");
    expect(JSON.stringify(proposeRequest?.body)).toContain(UNTRUSTED_BEGIN);

    const revise = await turn(session.id, "add a field for the annual price");
    expect(revise.events.find((e) => e.type === "draft")).toMatchObject({
      draft: { fields: expect.arrayContaining([expect.objectContaining({ name: "annual_price" })]) },
    });
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.draft?.definition.fields.map((f) => f.name)).toEqual([
      "pro_price",
      "team_price",
      "plan_names",
      "annual_price",
    ]);
    expect(state.messages).toHaveLength(4);

    const lock = await turn(session.id, "looks good");
    expect(lock.events.find((e) => e.type === "locked")).toMatchObject({ version: 1 });
    const locked = await getLockedDefinition(t.db, state.tracker?.id ?? "");
    expect(locked?.definition.fields.map((f) => f.name)).toContain("annual_price");
    expect((await getSetupState(t.db, { userId, sessionId: session.id })).status).toBe("locked");
  });

  it("a message with no target gets a question back", async () => {
    const session = await createSetupSession(t.db, { userId });
    const r = await turn(session.id, "Tell me if Acme undercuts us");
    expect(r.last?.parts[0]?.text).toMatch(/Which page should I watch/);
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
    const events: TSetupEvent[] = [];
    await handleSetupMessage(t.db, {
      userId,
      sessionId: session.id,
      text: `Watch the dead one ${dead}`,
      config: localCapabilityConfig([site.url, "http://127.0.0.1:9"]),
      emit: (e) => events.push(e),
      model,
    });
    const replies = events.flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [e.message] : []));
    expect(replies.map((m) => m.metadata?.kind)).toEqual(["error", "text"]);
    expect(replies[0]?.parts[0]?.text).toMatch(/could not read http:\/\/127\.0\.0\.1:9\/pricing/);
    expect(replies[1]?.parts[0]?.text).toMatch(/Which other address/);
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.tracker).toBeNull();
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"]);
  });

  it("a draft that fails validation is sent back once for repair, then reported in chat and never saved", async () => {
    const session = await createSetupSession(t.db, { userId });
    const r = await turn(session.id, `Watch the broken one ${site.urlFor("/setup/acme/pricing")}`);
    const error = r.replies.find((m) => m.metadata?.kind === "error");
    expect(error?.parts[0]?.text).toMatch(/did not pass validation, so nothing was saved/);
    expect(error?.parts[0]?.text).toMatch(/money field needs a currency/);
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
    expect(next.events.some((e) => e.type === "draft")).toBe(true);
    const after = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(after.draft?.definition.fields.map((f) => f.name)).toContain("annual_price");
  });
});

import { DefaultChatTransport, readUIMessageStream } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleSetupTurnRequest } from "@/server/api/setup-turn-route";
import { createSetupSession, getSetupState, type TSetupUIMessage, textMessage } from "@/server/intelligence/setup";
import { SETUP_PRICING_HTML } from "../e2e/setup-pages";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { signedInOwner } from "../helpers/auth";
import { createTestDb, type TTestDb } from "../helpers/db";
import { bubbles, dataPart } from "../helpers/setup-turn";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * POST /api/setup/[sessionId] as the page calls it: the AI SDK's own DefaultChatTransport (what useChat
 * uses) parses the response, and readUIMessageStream builds the reply — rules mode speaks the protocol.
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;
/** The signed-in browser's session cookie: the route requires a session. */
let cookie: string;
const pending: Promise<void>[] = [];

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  ({ userId, cookie } = await signedInOwner(t.db));
  site.setPage("/setup/acme/pricing", { body: SETUP_PRICING_HTML });
});
afterAll(async () => {
  await Promise.all(pending);
  await site?.close();
  await t?.close();
});

const deps = () => ({
  db: t.db,
  config: localCapabilityConfig([site.url]),
  model: null,
  waitUntil: (work: Promise<void>) => void pending.push(work),
});

/** A transport like the page's: only the new message is sent, to the session's URL. */
function transport(sessionId: string) {
  return new DefaultChatTransport<TSetupUIMessage>({
    api: `http://app/api/setup/${sessionId}`,
    prepareSendMessagesRequest: ({ messages }) => ({ body: { message: messages.at(-1) } }),
    fetch: async (url, init) =>
      handleSetupTurnRequest(
        new Request(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), cookie } }),
        sessionId,
        deps(),
      ),
  });
}

async function send(sessionId: string, text: string) {
  const chunks = await transport(sessionId).sendMessages({
    chatId: sessionId,
    messages: [textMessage("user", text)],
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  let reply: TSetupUIMessage | undefined;
  for await (const snapshot of readUIMessageStream<TSetupUIMessage>({ stream: chunks, terminateOnError: true })) {
    reply = snapshot;
  }
  await Promise.all(pending);
  if (!reply) throw new Error("no reply");
  return reply;
}

const post = (sessionId: string, body: unknown) =>
  handleSetupTurnRequest(
    new Request(`http://app/api/setup/${sessionId}`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
    sessionId,
    deps(),
  );

describe("setup turn route", () => {
  it("streams a rules-mode turn as a UI message stream: sample, saved draft and the reply text", async () => {
    const session = await createSetupSession(t.db, { userId });
    const url = site.urlFor("/setup/acme/pricing");
    const reply = await send(session.id, `Tell me if Acme undercuts our $49 plan — ${url}`);
    expect(reply.role).toBe("assistant");
    expect(dataPart(reply, "sample")).toMatchObject({ target: url, document: { title: "Acme pricing" } });
    const draft = dataPart(reply, "draft");
    expect(draft).toMatchObject({ status: "saved", version: 1 });
    expect(draft?.status === "saved" && draft.view.fields.map((f) => f.name)).toContain("acme_pro_price");
    expect(bubbles(reply)).toEqual([
      { kind: "text", text: expect.stringMatching(/^I read .* and drafted \d+ fields/) },
    ]);
    // Transient progress is not part of the message.
    expect(reply.parts.some((p) => p.type === "data-status")).toBe(false);

    const lock = await send(session.id, "looks good");
    expect(dataPart(lock, "locked")).toMatchObject({ version: 1 });
    // What the page received is what was stored.
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.messages.at(-1)).toEqual(lock);
    expect(state.messages).toHaveLength(4);
  });

  it("maps refusals through toHttpError: bad body 400, someone else's or missing session 404, busy 409", async () => {
    const session = await createSetupSession(t.db, { userId });
    const bad = await post(session.id, "{not json");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "BAD_REQUEST" } });
    const empty = await post(session.id, { message: textMessage("user", "   ") });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: { code: "BAD_REQUEST", message: "Write a message first." } });

    const other = await t.db.user.create({ data: { name: "Someone else" } });
    const theirs = await createSetupSession(t.db, { userId: other.id });
    const notMine = await post(theirs.id, { message: textMessage("user", "hello") });
    expect(notMine.status).toBe(404);
    expect(await notMine.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    expect(await t.db.setupMessage.count({ where: { sessionId: theirs.id } })).toBe(0);

    site.setPage("/setup/slow", { body: SETUP_PRICING_HTML, delayMs: 300 });
    const first = await post(session.id, { message: textMessage("user", `Watch ${site.urlFor("/setup/slow")}`) });
    expect(first.status).toBe(200);
    const busy = await post(session.id, { message: textMessage("user", "looks good") });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: { code: "CONFLICT" } });
    await first.body?.cancel(); // the page went away; the turn still completes and is stored
    await Promise.all(pending);
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(state.draft?.version).toBe(1);
  });
});

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendSetupMessages,
  createSetupSession,
  getSetupState,
  listOpenSetupSessions,
  MAX_OPEN_SETUP_SESSIONS,
  openEditSession,
  startSetupTurn,
  textMessage,
} from "@/server/intelligence/setup";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/** The setup transcript as rows: appended, never rewritten; validated on load; sessions per person bounded. */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => {
  ({ t, site, userId } = await openSiteWorld());
  site.setJson("/api/plan", { plan: "pro", price: 45, seats: 5 });
});
afterAll(() => closeSiteWorld(t, site));

const turn = (sessionId: string, text: string) =>
  setupTurn(t.db, { userId, sessionId, text, config: localCapabilityConfig([site.url]), model: null });

/** Every stored row of the session with its row version (xmin changes on any UPDATE of the row). */
function rows(sessionId: string) {
  return t.db.$queryRaw<{ id: number; xmin: string; message: unknown }[]>`
    SELECT "id", xmin::text AS xmin, "message" FROM "SetupMessage" WHERE "sessionId" = ${sessionId} ORDER BY "id"`;
}

describe("setup messages", () => {
  it("appends each turn's messages as new rows and never touches earlier ones", async () => {
    const session = await createSetupSession(t.db, { userId });
    const seen: Awaited<ReturnType<typeof rows>> = [];
    for (const text of [`Watch our plan ${site.urlFor("/api/plan")}`, "add a field", "looks good"]) {
      await turn(session.id, text);
      const now = await rows(session.id);
      // One row for the person's message and one for the reply.
      expect(now).toHaveLength(seen.length + 2);
      // Earlier rows: same ids, same content, same row version — never rewritten.
      expect(now.slice(0, seen.length)).toEqual(seen);
      seen.splice(0, seen.length, ...now);
    }
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(state.messages[4]?.parts).toEqual([{ type: "text", text: "looks good" }]);
    expect(state.status).toBe("locked");
  });

  it("finishes and stores the turn when the page stops reading mid-stream", async () => {
    const session = await createSetupSession(t.db, { userId });
    site.setJson("/api/slow-plan", { plan: "team", price: 99 }, { delayMs: 200 });
    const turn = await startSetupTurn(t.db, {
      userId,
      sessionId: session.id,
      message: { id: randomUUID(), text: `Watch ${site.urlFor("/api/slow-plan")}` },
      config: localCapabilityConfig([site.url]),
      model: null,
    });
    const reader = turn.stream.getReader();
    await reader.read(); // the start of the reply, then the page goes away
    await reader.cancel();
    await turn.done;
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const reply = state.messages[1];
    if (!reply) throw new Error("no reply stored");
    expect(dataPart(reply, "draft")).toMatchObject({ status: "saved", version: 1 });
    expect(state.draft?.definition.fields.map((f) => f.name)).toEqual(["plan", "price"]);
  });

  it("skips a stored row that is not a valid setup message (and keeps it)", async () => {
    const session = await createSetupSession(t.db, { userId });
    await appendSetupMessages(t.db, { sessionId: session.id, messages: [textMessage("user", "first")] });
    await t.db.setupMessage.create({
      data: {
        sessionId: session.id,
        messageId: "bad",
        role: "assistant",
        message: { id: "bad", role: "assistant", parts: [{ type: "data-draft", data: { status: "nonsense" } }] },
      },
    });
    await appendSetupMessages(t.db, { sessionId: session.id, messages: [textMessage("assistant", "last")] });
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.messages.map((m) => m.parts)).toEqual([
      [{ type: "text", text: "first" }],
      [{ type: "text", text: "last" }],
    ]);
    expect(await t.db.setupMessage.count({ where: { sessionId: session.id } })).toBe(3);
  });

  it(`keeps at most ${MAX_OPEN_SETUP_SESSIONS} open sessions per person: the oldest close when a new one starts`, async () => {
    const other = await t.db.user.create({ data: { name: "Bounded" } });
    const tracker = await t.db.tracker.create({
      data: { userId: other.id, decision: "Watch it", capability: "web.scrape", capabilityInput: {} },
    });
    // One more open session than the bound (written directly), oldest first; the oldest has a draft tracker.
    const made: string[] = [];
    for (let i = 0; i <= MAX_OPEN_SETUP_SESSIONS; i++) {
      const s = await t.db.setupSession.create({
        data: {
          userId: other.id,
          trackerId: i === 0 ? tracker.id : null,
          updatedAt: new Date(Date.UTC(2020, 0, 1, 0, 0, i)),
        },
      });
      await t.db.setupMessage.create({
        data: {
          sessionId: s.id,
          messageId: `m${i}`,
          role: "user",
          message: { id: `m${i}`, role: "user", parts: [{ type: "text", text: `setup ${i}` }] },
        },
      });
      made.push(s.id);
    }
    // Talking to the second-oldest makes it the most recent one.
    await appendSetupMessages(t.db, { sessionId: made[1] ?? "", messages: [textMessage("user", "still here")] });

    const next = await createSetupSession(t.db, { userId: other.id });
    expect(next.closedSessions).toBe(2);
    const open = await t.db.setupSession.findMany({ where: { userId: other.id, status: "open" } });
    expect(open).toHaveLength(MAX_OPEN_SETUP_SESSIONS);
    expect(open.map((s) => s.id)).toEqual(expect.arrayContaining([next.id, made[1], made[3]]));
    // The oldest without a tracker is deleted with its messages…
    expect(await t.db.setupSession.findUnique({ where: { id: made[2] } })).toBeNull();
    expect(await t.db.setupMessage.count({ where: { sessionId: made[2] } })).toBe(0);
    // …the one with a draft tracker is kept, closed as abandoned, messages and all.
    const kept = await t.db.setupSession.findUnique({ where: { id: made[0] } });
    expect(kept?.status).toBe("abandoned");
    expect(await t.db.setupMessage.count({ where: { sessionId: made[0] } })).toBe(1);
    const listed = await listOpenSetupSessions(t.db, { userId: other.id, limit: 50 });
    expect(listed.map((s) => s.sessionId)).not.toContain(made[0]);
    expect(listed[0]).toMatchObject({ sessionId: made[1], title: "setup 1" });

    // Its tracker's "Edit definition" reopens the abandoned conversation (a draft tracker has no v1 yet).
    const reopened = await openEditSession(t.db, { userId: other.id, trackerId: tracker.id });
    expect(reopened.id).toBe(made[0]);
    expect((await t.db.setupSession.findUnique({ where: { id: made[0] } }))?.status).toBe("open");
  });
});

import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TLanguageModel } from "@/server/ai";
import { UNTRUSTED_BEGIN } from "@/server/ai";
import { saveContextFile } from "@/server/context";
import { createSetupSession, getSetupState } from "@/server/intelligence/setup";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { OUR_PRICE, rivalPage } from "../fixtures/context-example";
import type { TRecordingInput } from "../fixtures/model-server/recordings";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { utf8 } from "../helpers/context-fixtures";
import { createTestDb, type TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * Context files in setup with AI (docs/context-files.md, "While drafting"): a file attached while drafting reaches the drafter's prompt as untrusted data, and the
 * drafter (real @ai-sdk/openai client, fixture model server, recordings in setup-context-drafter.json) proposes
 * `our_price` with "price: material when it drops below our_price"; a proposal on a non-numeric or unknown field is
 * refused with the reason, and nothing of it is stored.
 */

let t: TTestDb;
let site: TFixtureSite;
let server: TModelServer;
let model: TLanguageModel;
let userId: string;

function recordings(siteOrigin: string): TRecordingInput[] {
  const file = new URL("../fixtures/model-server/recordings/setup-context-drafter.json", import.meta.url);
  return (
    JSON.parse(readFileSync(file, "utf8").replaceAll("__SITE__", siteOrigin)) as { recordings: TRecordingInput[] }
  ).recordings;
}

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  server = await startModelServer();
  model = fixtureModel(server.url) as TLanguageModel;
  userId = (await ensureLocalUser(t.db)).id;
  site.setPage("/setup-ctx-rival", { body: rivalPage("12.00") });
  server.setRecordings(recordings(site.url));
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await t?.close();
});

const turn = (sessionId: string, text: string) =>
  setupTurn(t.db, { userId, sessionId, text, config: localCapabilityConfig([site.url]), model });

describe("the AI drafter and context files", () => {
  it("proposes our_price drops_below from an attached file, and refuses invalid context rules", async () => {
    const session = await createSetupSession(t.db, { userId });
    const first = await turn(session.id, `Are we undercut on Pro? ${site.urlFor("/setup-ctx-rival")}`);
    expect(dataPart(first.reply, "draft")).toMatchObject({ status: "saved", version: 1 });
    // The binding says which tracker it created, so the page can attach files before any draft.
    const trackerId = dataPart(first.reply, "sample")?.trackerId as string;
    expect(trackerId).toBe((await getSetupState(t.db, { userId, sessionId: session.id })).tracker?.id);

    await saveContextFile(t.db, {
      userId,
      trackerId,
      name: "price-list.txt",
      mediaType: "text/plain",
      bytes: utf8(`Price list 2026\n${OUR_PRICE} USD for Pro\n`),
    });
    const second = await turn(session.id, "Use my price list");
    expect(server.requests.map((r) => r.matched)).toContain("ctx-2-revise-from-file");
    const revise = server.requests.find((r) => r.matched === "ctx-2-revise-from-file");
    // In the drafter's instructions, inside an untrusted block labelled with the file.
    const system = revise?.summary.system ?? "";
    const block = system.slice(system.indexOf(`${UNTRUSTED_BEGIN}`, system.indexOf("context files attached")));
    expect(block).toMatch(/source="context file price-list\.txt"/);
    expect(block.indexOf(OUR_PRICE)).toBeGreaterThan(0);
    expect(dataPart(second.reply, "draft")).toMatchObject({ status: "saved", version: 1 });
    const drafted = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(drafted.draft?.definition.contextValues).toEqual([
      { name: "our_price", label: "our price", file: "price-list.txt" },
    ]);
    expect(drafted.draft?.definition.contextRules).toEqual([
      { field: "price", value: "our_price", when: "drops_below" },
    ]);
    expect(second.last?.text).toContain("our_price");

    const third = await turn(session.id, "Also compare the plan name with our price");
    // The first refusal went back to the model for its one repair, naming the field and its type.
    const repair = server.requests.find((r) => r.matched === "ctx-3-repair-unknown-field");
    const told = repair?.summary.messages.map((m) => m.text).join("\n") ?? "";
    expect(told).toMatch(/a context rule needs a number, integer or money field; \\?"title\\?" is string/);
    const error = third.replies.find((b) => b.kind === "error")?.text ?? "";
    expect(error).toContain("did not pass validation, so nothing was saved");
    expect(error).toContain('"plan_cost" is not a field');
    const after = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(after.draft?.definition).toEqual(drafted.draft?.definition);
    expect(after.draft?.definition.fields.map((f) => f.name)).toEqual(["price"]);
  });

  it("falls back to the deterministic proposal when the drafter leaves a stated price unbound", async () => {
    const session = await createSetupSession(t.db, { userId });
    const first = await turn(session.id, `Are we undercut on Pro? ${site.urlFor("/setup-ctx-rival")}`);
    const trackerId = dataPart(first.reply, "sample")?.trackerId as string;
    await saveContextFile(t.db, {
      userId,
      trackerId,
      name: "our-prices.txt",
      mediaType: "text/plain",
      bytes: utf8(`${OUR_PRICE} USD\n`),
    });
    const reply = await turn(session.id, "Anything else to watch?");
    expect(server.requests.at(-1)?.matched).toBe("ctx-4-no-rule");
    expect(reply.replies.map((b) => b.text).join(" ")).toContain(
      "so I added price: material when it drops below our_price",
    );
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.draft?.definition.contextRules).toEqual([{ field: "price", value: "our_price", when: "drops_below" }]);
    expect(state.draft?.view.rules).toContain(
      "price: material when it drops below our_price (“our price” in our-prices.txt)",
    );
  });
});

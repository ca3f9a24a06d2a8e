import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createApiToken } from "@/server/api-tokens";
import { AppError } from "@/server/errors";
import { lockDefinition } from "@/server/intelligence/tracker-store";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker } from "../helpers/trackers";

/**
 * A regex the linear-time engine cannot run is refused at every way in — saving a draft, locking
 * (a draft stored before the rule), creating through the public API — with one message that names
 * the field and the construct. All three go through the definition schema's refinement.
 */
const definitionWith = (pattern: string) => ({
  fields: [
    { name: "title", type: "string", description: "Page title" },
    { name: "price", type: "string", description: "Price", extractor: { kind: "regex", pattern } },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: {},
});
const LOOKBEHIND = "(?<=\\$)\\d+";
const EXPECTED = "fields[1] (price) › extractor › pattern: lookbehind (?<=…) is not supported";

let db: TTestDb;
let token: string;

beforeAll(async () => {
  db = await createTestDb();
  const user = await ensureLocalUser(db.db);
  token = (await createApiToken(db.db, { userId: user.id, name: "ci" })).token;
});
afterAll(async () => {
  await db?.close();
});

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("regex extractors the engine cannot run", () => {
  it("are refused when a draft is saved", async () => {
    const error = await rejection(
      createActiveTracker(db.db, {
        capability: "web.scrape",
        capabilityInput: { url: "https://shop.example/a" },
        definition: definitionWith(LOOKBEHIND),
      }),
    );
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.message).toContain(EXPECTED);
  });

  it("are refused when a draft stored before the rule is locked", async () => {
    const { tracker, userId } = await createActiveTracker(db.db, {
      capability: "web.scrape",
      capabilityInput: { url: "https://shop.example/b" },
      definition: definitionWith("\\$(\\d+)"),
    });
    // A v2 draft written directly, as an older release could have stored it.
    await db.db.trackerDefinition.create({
      data: { trackerId: tracker.id, version: 2, definition: definitionWith(LOOKBEHIND) },
    });
    const error = await rejection(lockDefinition(db.db, { userId, trackerId: tracker.id }));
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.message).toContain(EXPECTED);
    const versions = await db.db.trackerDefinition.findMany({
      where: { trackerId: tracker.id, lockedAt: { not: null } },
    });
    expect(versions.map((v) => v.version)).toEqual([1]);
  });

  it("are a 400 naming the field from the public API", async () => {
    const request = new Request("http://app/api/v1/trackers", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        decision: "Is the shop cutting its price?",
        capability: "web.scrape",
        capabilityInput: { url: "https://shop.example/c" },
        definition: definitionWith("(\\d+)\\s\\1"),
      }),
    });
    const response = await handleRestRequest(request, { db: db.db });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("BAD_REQUEST");
    expect(body.error.message).toContain(
      "fields[1] (price) › extractor › pattern: backreferences such as \\1 are not supported",
    );
    expect(
      await db.db.tracker.count({ where: { capabilityInput: { equals: { url: "https://shop.example/c" } } } }),
    ).toBe(0);
  });
});

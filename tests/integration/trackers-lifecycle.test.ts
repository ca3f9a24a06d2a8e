import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TDb } from "@/server/db";
import { AppError } from "@/server/errors";
import type { TTrackerDefinition } from "@/server/intelligence/definition";
import { getLockedDefinition } from "@/server/intelligence/tracker-store";
import { ensureEntity, queryTimeline } from "@/server/timeline";
import {
  createTracker,
  getTracker,
  listDefinitionVersions,
  listTrackerSummaries,
  lockDefinition,
  saveDraftDefinition,
  setTrackerStatus,
} from "@/server/trackers";
import { createTestDb, type TTestDb } from "../helpers/db";

const placeDefinition = {
  fields: [
    { name: "rating", type: "number", description: "Average star rating", unit: "stars" },
    { name: "review_count", type: "integer", description: "Number of reviews", unit: "reviews" },
  ],
  identityRule: { kind: "place_id" },
  materiality: { rating: { kind: "numeric", absolute: 0.2 }, review_count: { kind: "numeric", absolute: 10 } },
} satisfies TTrackerDefinition;

const withDescription = {
  ...placeDefinition,
  fields: [...placeDefinition.fields, { name: "description", type: "string", description: "Editorial summary" }],
} satisfies TTrackerDefinition;

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

async function newUser(db: TDb, id: string) {
  return db.user.create({ data: { id, name: id } });
}

function newTracker(db: TDb, userId: string) {
  return createTracker(db, {
    userId,
    decision: "  Should we match the competitor's tasting menu price?  ",
    capability: "maps.place",
    capabilityInput: { placeId: "ChIJN1t_tDeuEmsRUsoyG83frY4" },
  });
}

describe("trackers (PGlite)", () => {
  let t: TTestDb;
  beforeAll(async () => {
    t = await createTestDb();
    await newUser(t.db, "alice");
    await newUser(t.db, "bob");
  });
  afterAll(() => t.close());

  it("createTracker trims the decision, validates the capability input and starts as a draft", async () => {
    const tracker = await newTracker(t.db, "alice");
    expect(tracker).toMatchObject({
      userId: "alice",
      decision: "Should we match the competitor's tasting menu price?",
      capability: "maps.place",
      capabilityInput: { placeId: "ChIJN1t_tDeuEmsRUsoyG83frY4" },
      status: "draft",
      lockedVersion: null,
      scheduleMinutes: 60,
      nextRunAt: null,
    });

    const short = await rejection(
      createTracker(t.db, { userId: "alice", decision: " ab ", capability: "maps.place", capabilityInput: {} }),
    );
    expect(short.code).toBe("BAD_REQUEST");
    expect(short.message).toMatch(/at least 3 characters/);
    const long = await rejection(
      createTracker(t.db, {
        userId: "alice",
        decision: "x".repeat(2001),
        capability: "maps.place",
        capabilityInput: { placeId: "p" },
      }),
    );
    expect(long.code).toBe("BAD_REQUEST");
    const badInput = await rejection(
      createTracker(t.db, { userId: "alice", decision: "Watch it", capability: "web.scrape", capabilityInput: {} }),
    );
    expect(badInput.code).toBe("BAD_REQUEST");
    expect(badInput.message).toMatch(/web\.scrape/);
    const unknown = await rejection(
      createTracker(t.db, { userId: "alice", decision: "Watch it", capability: "nope.verb", capabilityInput: {} }),
    );
    expect(unknown.message).toMatch(/Unknown capability "nope.verb"/);
    const schedule = await createTracker(t.db, {
      userId: "alice",
      decision: "Watch it",
      capability: "web.scrape",
      capabilityInput: { url: "https://example.com/menu" },
      scheduleMinutes: 15,
    });
    expect(schedule.scheduleMinutes).toBe(15);
    expect((await rejection(newTracker(t.db, "nobody"))).code).toBe("NOT_FOUND");
  });

  it("create → draft v1 → lock v1 → edit makes draft v2 → lock v2; v1 never changes", async () => {
    const tracker = await newTracker(t.db, "alice");
    expect(await getLockedDefinition(t.db, tracker.id)).toBeNull();

    const nothing = await rejection(lockDefinition(t.db, { userId: "alice", trackerId: tracker.id }));
    expect(nothing.code).toBe("PRECONDITION_FAILED");
    expect(nothing.message).toMatch(/^Nothing to lock/);

    const draft1 = await saveDraftDefinition(t.db, {
      userId: "alice",
      trackerId: tracker.id,
      definition: { ...placeDefinition, fields: placeDefinition.fields.slice(0, 1), materiality: {} },
    });
    expect(draft1).toMatchObject({ version: 1, lockedAt: null });
    // Saving again replaces the one draft rather than adding a version.
    const draft1b = await saveDraftDefinition(t.db, {
      userId: "alice",
      trackerId: tracker.id,
      definition: placeDefinition,
    });
    expect(draft1b.id).toBe(draft1.id);
    expect(draft1b.definition).toEqual(placeDefinition);
    expect(await t.db.trackerDefinition.count({ where: { trackerId: tracker.id } })).toBe(1);
    expect(await getLockedDefinition(t.db, tracker.id)).toBeNull();

    const before = Date.now();
    const locked1 = await lockDefinition(t.db, { userId: "alice", trackerId: tracker.id });
    expect(locked1.tracker).toMatchObject({ status: "active", lockedVersion: 1 });
    expect(locked1.tracker.nextRunAt?.getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(locked1.definition).toMatchObject({ id: draft1.id, version: 1 });
    expect(locked1.definition.lockedAt).toBeInstanceOf(Date);
    expect(await getLockedDefinition(t.db, tracker.id)).toEqual({ version: 1, definition: placeDefinition });
    const v1Row = await t.db.trackerDefinition.findUniqueOrThrow({ where: { id: draft1.id } });

    // Locking again without a new draft has nothing to do.
    const again = await rejection(lockDefinition(t.db, { userId: "alice", trackerId: tracker.id }));
    expect(again.code).toBe("PRECONDITION_FAILED");
    expect(again.message).toMatch(/version 1 is already locked/);

    const draft2 = await saveDraftDefinition(t.db, {
      userId: "alice",
      trackerId: tracker.id,
      definition: withDescription,
    });
    expect(draft2).toMatchObject({ version: 2, lockedAt: null });
    expect(draft2.id).not.toBe(draft1.id);
    // The draft does not change what is in force.
    expect(await getLockedDefinition(t.db, tracker.id)).toEqual({ version: 1, definition: placeDefinition });

    // Pause before locking v2: a paused tracker stays paused.
    await setTrackerStatus(t.db, { userId: "alice", trackerId: tracker.id, status: "paused" });
    const locked2 = await lockDefinition(t.db, { userId: "alice", trackerId: tracker.id });
    expect(locked2.tracker).toMatchObject({ status: "paused", lockedVersion: 2 });
    expect(await getLockedDefinition(t.db, tracker.id)).toEqual({ version: 2, definition: withDescription });

    expect(await t.db.trackerDefinition.findUniqueOrThrow({ where: { id: draft1.id } })).toEqual(v1Row);
    const versions = await listDefinitionVersions(t.db, { userId: "alice", trackerId: tracker.id });
    expect(versions.map((v) => [v.version, v.inForce, v.lockedAt !== null])).toEqual([
      [2, true, true],
      [1, false, true],
    ]);
    expect(versions[1]?.definition).toEqual(placeDefinition);

    // v3 draft sits on top; the list shows it first.
    await saveDraftDefinition(t.db, { userId: "alice", trackerId: tracker.id, definition: placeDefinition });
    const withDraft = await listDefinitionVersions(t.db, { userId: "alice", trackerId: tracker.id });
    expect(withDraft.map((v) => [v.version, v.inForce, v.lockedAt])).toEqual([
      [3, false, null],
      [2, true, expect.any(Date)],
      [1, false, expect.any(Date)],
    ]);
  });

  it("the database itself refuses to change or delete a locked definition (trigger)", async () => {
    const tracker = await newTracker(t.db, "alice");
    const draft = await saveDraftDefinition(t.db, {
      userId: "alice",
      trackerId: tracker.id,
      definition: placeDefinition,
    });
    // A draft may be edited with raw SQL; that is what drafts are for.
    await t.db.$executeRawUnsafe(
      `UPDATE "TrackerDefinition" SET "definition" = "definition" WHERE "id" = $1`,
      draft.id,
    );
    await lockDefinition(t.db, { userId: "alice", trackerId: tracker.id });
    const before = await t.db.trackerDefinition.findUniqueOrThrow({ where: { id: draft.id } });

    await expect(
      t.db.$executeRawUnsafe(`UPDATE "TrackerDefinition" SET "definition" = '{}'::jsonb WHERE "id" = $1`, draft.id),
    ).rejects.toThrow(/is locked and cannot be changed/);
    await expect(
      t.db.$executeRawUnsafe(`UPDATE "TrackerDefinition" SET "lockedAt" = NULL WHERE "id" = $1`, draft.id),
    ).rejects.toThrow(/is locked/);
    await expect(t.db.trackerDefinition.update({ where: { id: draft.id }, data: { version: 9 } })).rejects.toThrow();
    await expect(t.db.$executeRawUnsafe(`DELETE FROM "TrackerDefinition" WHERE "id" = $1`, draft.id)).rejects.toThrow(
      /is locked/,
    );
    expect(await t.db.trackerDefinition.findUniqueOrThrow({ where: { id: draft.id } })).toEqual(before);

    // Deleting the tracker still cascades to its locked versions.
    await t.db.tracker.delete({ where: { id: tracker.id } });
    expect(await t.db.trackerDefinition.count({ where: { trackerId: tracker.id } })).toBe(0);
  });

  it("an invalid definition is a readable BAD_REQUEST and stores nothing", async () => {
    const tracker = await newTracker(t.db, "alice");
    const error = await rejection(
      saveDraftDefinition(t.db, {
        userId: "alice",
        trackerId: tracker.id,
        definition: {
          fields: [{ name: "rating", type: "number", description: "Stars" }],
          identityRule: { kind: "place_id" },
          materiality: { ghost: { kind: "any_change" }, rating: { kind: "numeric" } },
        },
      }),
    );
    expect(error.code).toBe("BAD_REQUEST");
    const errors = error.details?.errors as string[];
    expect(errors).toEqual(
      expect.arrayContaining([
        'materiality › ghost: there is a rule for "ghost" but no field with that name',
        "materiality › rating: a numeric rule needs an absolute or a relative threshold (or both)",
      ]),
    );
    expect(error.message).toContain('there is a rule for "ghost" but no field with that name');
    expect(error.message).toMatch(/^The definition is not valid: /);
    const notAnObject = await rejection(
      saveDraftDefinition(t.db, { userId: "alice", trackerId: tracker.id, definition: "fields: rating" }),
    );
    expect(notAnObject.code).toBe("BAD_REQUEST");
    expect(await t.db.trackerDefinition.count({ where: { trackerId: tracker.id } })).toBe(0);
  });

  it("status transitions: active ↔ paused, anything → archived, a draft only activates by locking", async () => {
    const tracker = await newTracker(t.db, "alice");
    const set = (status: "draft" | "active" | "paused" | "archived") =>
      setTrackerStatus(t.db, { userId: "alice", trackerId: tracker.id, status });

    const draftToActive = await rejection(set("active"));
    expect(draftToActive.code).toBe("PRECONDITION_FAILED");
    expect(draftToActive.message).toMatch(/Lock the definition/);
    expect((await rejection(set("paused"))).code).toBe("PRECONDITION_FAILED");
    expect((await set("draft")).status).toBe("draft"); // same status: no-op

    await saveDraftDefinition(t.db, { userId: "alice", trackerId: tracker.id, definition: placeDefinition });
    await lockDefinition(t.db, { userId: "alice", trackerId: tracker.id });
    expect((await set("paused")).status).toBe("paused");
    expect((await set("active")).status).toBe("active");
    expect((await rejection(set("draft"))).code).toBe("PRECONDITION_FAILED");
    expect((await set("archived")).status).toBe("archived");
    expect((await rejection(set("active"))).code).toBe("PRECONDITION_FAILED");
    expect((await rejection(set("paused"))).code).toBe("PRECONDITION_FAILED");
    expect((await set("archived")).status).toBe("archived");
    expect((await rejection(set("bogus" as "active"))).code).toBe("BAD_REQUEST");
    // An archived tracker's definition is frozen for good.
    const frozen = await rejection(
      saveDraftDefinition(t.db, { userId: "alice", trackerId: tracker.id, definition: withDescription }),
    );
    expect(frozen.code).toBe("PRECONDITION_FAILED");

    // A draft can be archived directly.
    const other = await newTracker(t.db, "alice");
    expect((await setTrackerStatus(t.db, { userId: "alice", trackerId: other.id, status: "archived" })).status).toBe(
      "archived",
    );
  });

  it("another user's tracker is NOT_FOUND everywhere, and nothing of it changes", async () => {
    const tracker = await newTracker(t.db, "alice");
    await saveDraftDefinition(t.db, { userId: "alice", trackerId: tracker.id, definition: placeDefinition });
    const asBob = { userId: "bob", trackerId: tracker.id };
    const attempts: Array<[string, Promise<unknown>]> = [
      ["getTracker", getTracker(t.db, asBob)],
      ["saveDraftDefinition", saveDraftDefinition(t.db, { ...asBob, definition: withDescription })],
      ["lockDefinition", lockDefinition(t.db, asBob)],
      ["listDefinitionVersions", listDefinitionVersions(t.db, asBob)],
      ["setTrackerStatus", setTrackerStatus(t.db, { ...asBob, status: "archived" })],
    ];
    for (const [name, attempt] of attempts) {
      const error = await rejection(attempt);
      expect([name, error.code, error.message]).toEqual([name, "NOT_FOUND", "Tracker not found."]);
    }
    // The same answer as for an id that does not exist at all.
    expect((await rejection(getTracker(t.db, { userId: "alice", trackerId: "missing" }))).code).toBe("NOT_FOUND");

    const after = await getTracker(t.db, { userId: "alice", trackerId: tracker.id });
    expect(after).toMatchObject({ status: "draft", lockedVersion: null });
    const versions = await listDefinitionVersions(t.db, { userId: "alice", trackerId: tracker.id });
    expect(versions.map((v) => v.definition)).toEqual([placeDefinition]);

    const bobs = await listTrackerSummaries(t.db, { userId: "bob" });
    expect(bobs.map((x) => x.id)).not.toContain(tracker.id);
    const bobTracker = await newTracker(t.db, "bob");
    expect((await listTrackerSummaries(t.db, { userId: "bob" })).map((x) => x.id)).toEqual([bobTracker.id]);
    const alices = await listTrackerSummaries(t.db, { userId: "alice" });
    expect(alices.map((x) => x.id)).toContain(tracker.id);
    const notAlices = await t.db.tracker.count({
      where: { id: { in: alices.map((x) => x.id) }, NOT: { userId: "alice" } },
    });
    expect(notAlices).toBe(0);
    expect(alices[0]?.createdAt.getTime()).toBeGreaterThanOrEqual(alices.at(-1)?.createdAt.getTime() ?? 0);
  });

  it("the timeline of a fresh tracker is empty and entities attach to it", async () => {
    const tracker = await newTracker(t.db, "alice");
    const entity = await ensureEntity(t.db, { trackerId: tracker.id, entityKey: "place:abc" });
    expect(entity.trackerId).toBe(tracker.id);
    expect(await queryTimeline(t.db, { trackerId: tracker.id })).toEqual({ items: [], nextCursor: null });
  });
});

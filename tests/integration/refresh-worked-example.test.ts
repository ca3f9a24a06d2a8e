import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker } from "@/server/intelligence/refresh";
import { queryTimeline } from "@/server/timeline";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFakePlaces, type TFakePlaces } from "../fixtures/places/server";
import { WORKED_EXAMPLE_DEFINITION } from "../fixtures/worked-example";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * docs/design.md §3 worked example, end to end: maps.place through the real capability (a local Places
 * stand-in), fill by extractors, rules by code, one judge call through the real @ai-sdk/openai client.
 */
const PLACE_ID = "ChIJ-worked-example";
const definition = WORKED_EXAMPLE_DEFINITION;

const hours = ["Monday: 9 AM – 5 PM", "Tuesday: 9 AM – 5 PM"];
function place(rating: number, reviews: number, summary: string) {
  return {
    id: PLACE_ID,
    displayName: { text: "Rival Coffee" },
    rating,
    userRatingCount: reviews,
    regularOpeningHours: { weekdayDescriptions: hours },
    editorialSummary: { text: summary },
    businessStatus: "OPERATIONAL",
  };
}

let db: TTestDb;
let places: TFakePlaces;
let models: TModelServer;

beforeAll(async () => {
  db = await createTestDb();
  places = await startFakePlaces({
    apiKey: "places-key",
    places: { [PLACE_ID]: place(4.4, 312, "Cosy café with house-roasted beans.") },
  });
  models = await startModelServer({
    recordings: [
      {
        name: "judge: reworded description is noise",
        match: { schemaName: "change_verdicts" },
        response: { json: { description: { verdict: "noise", reason: "Same meaning, different words." } } },
      },
    ],
  });
});

afterAll(async () => {
  await places?.close();
  await models?.close();
  await db?.close();
});

describe("refresh: the worked example (maps.place)", () => {
  it("records one material change with one judge call and no model call for the rating tick", async () => {
    const { tracker } = await createActiveTracker(db.db, {
      capability: "maps.place",
      capabilityInput: { placeId: PLACE_ID },
      definition,
      decision: "Is Rival Coffee pulling ahead of us?",
    });
    const model = fixtureModel(models.url);
    const options = {
      trigger: "manual" as const,
      models: { filler: model, judge: model },
      capabilityConfig: localCapabilityConfig([places.url], { mapsBaseUrl: places.url, mapsApiKey: "places-key" }),
    };

    const first = await refreshTracker(db.db, tracker.id, options);
    expect(first).toMatchObject({ status: "completed", outcome: "baseline", modelCalls: 0 });

    places.setPlace(PLACE_ID, place(4.3, 470, "A cosy café that roasts its own beans."));
    const requestsBefore = models.requests.length;
    const second = await refreshTracker(db.db, tracker.id, options);

    expect(second.status).toBe("completed");
    expect(second.outcome).toBe("material");
    expect(second.summary).toBe("material: review_count 312→470");
    // Exactly one model call, and it was the judge, about the description only.
    expect(second.modelCalls).toBe(1);
    const calls = models.requests.slice(requestsBefore);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.summary.schemaName).toBe("change_verdicts");
    expect(JSON.stringify(calls[0]?.body)).toContain("description");
    expect(JSON.stringify(calls[0]?.body)).not.toContain("review_count");

    const timeline = await queryTimeline(db.db, { trackerId: tracker.id });
    expect(timeline.items.map((i) => i.materiality)).toEqual(["material", "baseline"]);
    const change = timeline.items[0];
    expect(change?.delta).toEqual({ review_count: { from: 312, to: 470 } });
    expect(change?.decisions).toMatchObject({
      rating: { verdict: "noise", decidedBy: "code" },
      review_count: { verdict: "material", decidedBy: "code" },
      description: { verdict: "noise", decidedBy: "agent" },
    });
    expect(change?.decisions).not.toHaveProperty("hours");
  });
});

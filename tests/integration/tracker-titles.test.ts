import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMigrations, type TDb } from "@/server/db";
import { trackerTitle } from "@/server/intelligence/setup/tracker-title";
import { createPostgresTestDb, createTestDb, hasPostgres, type TPostgresTestDb, type TTestDb } from "../helpers/db";

/**
 * Titles stored before titles came from the decision: the migration cleans every setup-made tracker whose title holds
 * an address, in SQL, the way tracker-title.ts titles new ones. Both are held to the same examples here, so the two
 * cannot drift apart; trackers made without the chat (the API) and clean titles are left alone.
 */

const MIGRATION = readMigrations().find((m) => m.name.endsWith("_clean_setup_tracker_titles"));

type TExample = {
  message: string;
  expected: string;
  pageTitle?: string | null;
  placeName?: string;
  placeId?: string;
};

const EXAMPLES: TExample[] = [
  { message: "watch https://shop.example/widget for price drops", expected: "Watch for price drops" },
  {
    message: "Is the widget back in stock at https://shop.example/widget?",
    expected: "Is the widget back in stock?",
  },
  {
    message: "Watch this: https://shop.example/widget. Is it in stock?",
    expected: "Is it in stock?",
  },
  {
    message: "hi! is the competitor cheaper than us? https://acme.example/pricing",
    expected: "Is the competitor cheaper than us?",
  },
  {
    message: "Tell me if Acme undercuts our $49 plan — https://acme.example/pricing",
    expected: "Tell me if Acme undercuts our $49 plan",
  },
  { message: "Is the price below 39.50? (https://x.example/a)", expected: "Is the price below 39.50?" },
  { message: "  keep an eye on www.shop.example/a.   ", expected: "Keep an eye on" },
  {
    message: "did the venue change its hours? place id: ChIJN1t_tDeuEmsRUsoyG83frY4",
    expected: "Did the venue change its hours?",
    placeId: "ChIJN1t_tDeuEmsRUsoyG83frY4",
  },
  {
    message: "https://shop.example/widget",
    pageTitle: "Widget — Example   Shop",
    expected: "Watch Widget — Example Shop",
  },
  {
    message: "ChIJN1t_tDeuEmsRUsoyG83frY4",
    placeName: "Chez Nous",
    placeId: "ChIJN1t_tDeuEmsRUsoyG83frY4",
    expected: "Watch Chez Nous",
  },
  { message: "Watch https://www.Shop.example:8443/widget", pageTitle: null, expected: "Watch shop.example" },
  {
    message: "ChIJN1t_tDeuEmsRUsoyG83frY4",
    pageTitle: null,
    placeId: "ChIJN1t_tDeuEmsRUsoyG83frY4",
    expected: "Watch this place",
  },
  {
    message: `Tell me whenever ${"the competitor's seasonal tasting menu ".repeat(6)}changes https://r.example/menu`,
    expected:
      "Tell me whenever the competitor's seasonal tasting menu the competitor's seasonal tasting menu the competitor's…",
  },
];

let t: TTestDb;
let pg: TPostgresTestDb | null = null;

beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t?.close();
  await pg?.drop();
});

describe("tracker titles", () => {
  it.each(EXAMPLES)("new trackers: $message → $expected", (example) => {
    const capabilityInput = example.placeId ? { placeId: example.placeId } : { url: urlIn(example) };
    expect(
      trackerTitle({ message: example.message, sampleName: example.pageTitle ?? example.placeName, capabilityInput }),
    ).toBe(example.expected);
  });

  it("the migration cleans stored setup titles exactly like new ones, and leaves others alone (PGlite)", () =>
    checkMigration(t.db));

  // PostgreSQL's own regex engine and locale, when TEST_DATABASE_URL is set.
  it.skipIf(!hasPostgres)("the same on PostgreSQL", async () => {
    pg = await createPostgresTestDb();
    await checkMigration(pg.db);
  });
});

async function checkMigration(db: TDb) {
  if (!MIGRATION) throw new Error("the clean_setup_tracker_titles migration is missing");
  await db.user.create({ data: { id: "u1", name: "U" } });
  const rows = EXAMPLES.map((example, i) => ({ id: `tr-${i}`, example }));
  for (const { id, example } of rows) {
    const capabilityInput = example.placeId ? { placeId: example.placeId } : { url: urlIn(example) };
    const sample = example.placeName
      ? { label: "x", results: { place: { name: example.placeName }, document: { title: null } } }
      : { label: "x", results: { document: { title: example.pageTitle ?? null } } };
    await db.tracker.create({
      data: {
        id,
        userId: "u1",
        decision: example.message,
        capability: example.placeId ? "maps.place" : "web.scrape",
        capabilityInput,
        setup: { create: { id: `s-${id}`, userId: "u1", sample } },
      },
    });
  }
  // Made through the API (no setup conversation): its title is the person's and stays, address and all.
  await db.tracker.create({
    data: {
      id: "api",
      userId: "u1",
      decision: "watch https://shop.example/x",
      capability: "web.scrape",
      capabilityInput: { url: "https://shop.example/x" },
    },
  });
  await db.$executeRawUnsafe(MIGRATION.sql);
  const stored = await db.tracker.findMany({ select: { id: true, decision: true } });
  const byId = new Map(stored.map((s) => [s.id, s.decision]));
  expect(rows.map(({ id }) => byId.get(id))).toEqual(EXAMPLES.map((e) => e.expected));
  expect(byId.get("api")).toBe("watch https://shop.example/x");
  // Clean titles hold no address, so running it again changes nothing.
  await db.$executeRawUnsafe(MIGRATION.sql);
  const again = await db.tracker.findMany({ select: { id: true, decision: true } });
  expect(new Map(again.map((s) => [s.id, s.decision]))).toEqual(byId);
}

function urlIn(example: TExample): string {
  return /(https?:\/\/|www\.)\S+/.exec(example.message)?.[0] ?? "https://shop.example/";
}
